// What the engine tests share: checkpoint folders for the engine_test model
// plugin (test_model_plugin.cc) and engines opened on them.
#ifndef OXINFER_TESTS_ENGINE_ENGINE_TEST_SUPPORT_H_
#define OXINFER_TESTS_ENGINE_ENGINE_TEST_SUPPORT_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/engine/engine.h"

namespace oxinfer::engine::testing {

struct TestModel {
  std::string dir;
  std::string log;  // the plugin's log of sequence operations
};

// A folder named `name` under TEST_TMPDIR with config.json (model_type
// engine_test, vocab 256, the log file, plus `extra_config`: more members,
// `"a": 1, "b": 2`), the tiny tokenizer's tokenizer.json, and
// tokenizer_config.json when `tokenizer_config` is not empty.
TestModel MakeModel(const std::string& name, const std::string& extra_config,
                    const std::string& tokenizer_config = "");

// Writes `text` to dir/file.
void WriteFile(const std::string& dir, const std::string& file, const std::string& text);

// On the CPU backend, with the test plugins' folders searched first.
absl::StatusOr<std::unique_ptr<Engine>> OpenEngine(const std::string& model_dir,
                                                   int max_sessions = 1);

// A greedy session.
std::unique_ptr<Session> GreedySession(Engine& engine);

// A raw prompt's reply.
absl::StatusOr<Reply> Raw(Session& session, const std::string& text, int64_t max_tokens,
                          std::vector<std::string> stops = {},
                          const EventCallback& on_event = nullptr);

// The log's lines, and whether one of them is `line`.
std::vector<std::string> ReadLog(const TestModel& model);
bool LogHas(const TestModel& model, const std::string& line);
// The largest number of entries any logged forward carried.
int MaxEntriesPerForward(const TestModel& model);

// Token ids of a raw prompt of the tiny tokenizer: <bos> (2), then 'a'..'z' as 51..76.
std::vector<int32_t> RawIds(const std::string& letters);

}  // namespace oxinfer::engine::testing

#endif  // OXINFER_TESTS_ENGINE_ENGINE_TEST_SUPPORT_H_
