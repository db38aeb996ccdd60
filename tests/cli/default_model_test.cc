// The installed oxinfer (//:dist) run with no --model: the built-in
// demonstration model must give transformers' greedy tokens
// (models/default/REFERENCE_GREEDY.json, made by tools/default_model/train.py)
// for raw prompts and for chat prompts with a fixed system prompt.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace {

struct RunResult {
  int status = -1;
  std::string out, err;
};

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs argv with stdout and stderr in files (no shell, so prompts need no quoting).
RunResult RunCommand(const std::vector<std::string>& argv) {
  const char* tmp = getenv("TEST_TMPDIR");
  const std::string dir = tmp ? tmp : "/tmp";
  const std::string out = dir + "/out.txt", err = dir + "/err.txt";
  RunResult r;
  const pid_t pid = fork();
  if (pid == 0) {
    freopen(out.c_str(), "w", stdout);
    freopen(err.c_str(), "w", stderr);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = Slurp(out);
  r.err = Slurp(err);
  return r;
}

// Ids from a "[<what> tokens: 12:tok 34:tok ...]" line of --show-tokens.
std::vector<int32_t> ShownIds(const std::string& err, const std::string& what) {
  std::vector<int32_t> ids;
  const std::string head = "[" + what + " tokens:";
  const size_t at = err.find(head);
  if (at == std::string::npos) return ids;
  const size_t end = err.find('\n', at);
  const std::string line = err.substr(at + head.size(), end - at - head.size());
  for (absl::string_view item : absl::StrSplit(line, ' ', absl::SkipEmpty())) {
    int32_t id;
    if (absl::SimpleAtoi(item.substr(0, item.find(':')), &id)) ids.push_back(id);
  }
  return ids;
}

TEST(DefaultModelTest, GreedyTokensMatchTransformers) {
  const auto cases = nlohmann::json::parse(Slurp("models/default/REFERENCE_GREEDY.json"));
  ASSERT_GE(cases.size(), 4u);
  const std::vector<int32_t> stop_ids = {4093, 4095};  // <|endoftext|>, <|im_end|>
  int checked = 0;
  for (const auto& c : cases) {
    std::vector<std::string> argv = {"dist/bin/oxinfer", "--show-tokens", "--threads=1"};
    std::vector<int32_t> want = c["greedy_ids"].get<std::vector<int32_t>>();
    while (!want.empty() &&
           std::find(stop_ids.begin(), stop_ids.end(), want.back()) != stop_ids.end()) {
      want.pop_back();  // the CLI stops there without emitting it
    }
    if (c["mode"] == "raw") {
      argv.insert(argv.end(), {"--raw", "-p", c["prompt"].get<std::string>()});
    } else {
      argv.insert(argv.end(), {"--system", c["system"].get<std::string>(), "-p",
                               c["user"].get<std::string>()});
    }
    argv.push_back("--max-tokens=" + std::to_string(c["greedy_ids"].size()));
    const RunResult r = RunCommand(argv);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("tiny built-in demonstration model"), std::string::npos) << r.err;
    EXPECT_EQ(ShownIds(r.err, "prompt"), c["prompt_ids"].get<std::vector<int32_t>>())
        << c["prompt"];
    EXPECT_EQ(ShownIds(r.err, "generated"), want) << c["prompt"];
    const std::string text = c["text"].get<std::string>();
    EXPECT_EQ(r.out, std::string(absl::StripSuffix(text, "<|im_end|>")) + "\n") << c["prompt"];
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(cases.size()));
}

}  // namespace
