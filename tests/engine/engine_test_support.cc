#include "tests/engine/engine_test_support.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "tests/support/test_backends.h"

namespace oxinfer::engine::testing {
namespace {

std::string TmpDir() {
  const char* t = std::getenv("TEST_TMPDIR");
  return t != nullptr ? t : "/tmp";
}

std::string FolderOf(const std::string& path) { return path.substr(0, path.rfind('/')); }

}  // namespace

void WriteFile(const std::string& dir, const std::string& file, const std::string& text) {
  std::ofstream out(dir + "/" + file, std::ios::binary | std::ios::trunc);
  out << text;
  ASSERT_TRUE(out.good()) << dir << "/" << file;
}

TestModel MakeModel(const std::string& name, const std::string& extra_config,
                    const std::string& tokenizer_config) {
  TestModel m;
  m.dir = TmpDir() + "/" + name;
  m.log = m.dir + "/plugin.log";
  ::mkdir(m.dir.c_str(), 0755);
  std::remove(m.log.c_str());
  std::string config = absl::StrCat(R"({"model_type": "engine_test", "vocab_size": 256, )",
                                    R"("log_file": ")", m.log, "\"");
  if (!extra_config.empty()) absl::StrAppend(&config, ", ", extra_config);
  config += "}";
  WriteFile(m.dir, "config.json", config);
  std::ifstream tok(oxinfer::testing::Runfile("tests/cli/testdata/tiny_tokenizer/tokenizer.json"));
  std::stringstream ss;
  ss << tok.rdbuf();
  WriteFile(m.dir, "tokenizer.json", ss.str());
  if (!tokenizer_config.empty()) WriteFile(m.dir, "tokenizer_config.json", tokenizer_config);
  return m;
}

absl::StatusOr<std::unique_ptr<Engine>> OpenEngine(const std::string& model_dir, int max_sessions) {
  using oxinfer::testing::Runfile;
  EngineOptions options;
  options.model_dir = model_dir;
  options.plugin_dirs =
      absl::StrCat(FolderOf(Runfile("tests/engine/liboxinfer_engine_test_model.so")), ":",
                   FolderOf(Runfile("plugins/backends/cpu/liboxinfer_cpu_scalar.so")), ":",
                   FolderOf(Runfile("plugins/codecs/png/liboxinfer_png.so")));
  options.device = "cpu";
  options.max_sessions = max_sessions;
  return Engine::Open(options);
}

std::unique_ptr<Session> GreedySession(Engine& engine) {
  SessionOptions options;
  options.sampling.temperature = 0.0f;
  auto session = engine.NewSession(options);
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? *std::move(session) : nullptr;
}

std::vector<std::string> ReadLog(const TestModel& model) {
  std::ifstream in(model.log);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

absl::StatusOr<Reply> Raw(Session& session, const std::string& text, int64_t max_tokens,
                          std::vector<std::string> stops, const EventCallback& on_event) {
  auto prompt = session.RawPrompt(text);
  if (!prompt.ok()) return prompt.status();
  GenerationOptions options;
  options.max_tokens = max_tokens;
  options.stop_strings = std::move(stops);
  return session.Generate(*prompt, options, on_event);
}

bool LogHas(const TestModel& model, const std::string& line) {
  const auto lines = ReadLog(model);
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

int MaxEntriesPerForward(const TestModel& model) {
  int most = 0;
  for (const std::string& line : ReadLog(model)) {
    std::vector<std::string> words = absl::StrSplit(line, ' ');
    int n = 0;
    if (words.size() > 1 && words[0] == "forward" && absl::SimpleAtoi(words[1], &n)) {
      most = std::max(most, n);
    }
  }
  return most;
}

std::vector<int32_t> RawIds(const std::string& letters) {
  std::vector<int32_t> ids = {2};
  for (char c : letters) ids.push_back(51 + (c - 'a'));
  return ids;
}

}  // namespace oxinfer::engine::testing
