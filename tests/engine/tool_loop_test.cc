// The whole tool loop through the real plugin path: the scripted model
// (scripted_model_plugin.cc) declares nothing and knows nothing; it replies
// with a Gemma 4 or Qwen 3.8 call of the built-in calculator, then with an
// answer. The engine renders the declarations with the real template, parses
// the call out of the stream, the built-in tool runs it, and its result goes
// back through the template into the second prompt.
#include "core/engine/tool_loop.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/builtin_tools/builtin_tools.h"
#include "gtest/gtest.h"
#include "tests/engine/engine_test_support.h"
#include "tests/support/shared_data.h"
#include "tests/support/test_backends.h"

namespace oxinfer::engine {
namespace {

using testing::OpenEngine;
using testing::WriteFile;

constexpr char kTokenizer[] = "tests/engine/testdata/byte_tokenizer/tokenizer.json";

struct Family {
  const char* name;
  const char* template_path;  // under shared/data
  const char* call;           // the model's first reply: one call, as the family writes it
  int call_end;               // the token that ends a calling turn
  int stop;                   // the token that ends a turn
  const char* response;       // how the template shows the tool's answer
};

// Byte-level tokenizer ids: <eos> 257, <turn|> 260, <|tool_response> 264, <|im_end|> 272.
const Family kFamilies[] = {
    {"gemma4", "templates/gemma4/chat_template.E2B-E4B-it.v4-2026-07-09.jinja",
     "<|tool_call>call:calculate{expression:<|\\\"|>1234.5 * 6789 - 2^20<|\\\"|>}<tool_call|>", 264,
     260, "<|tool_response>response:calculate{value:<|\"|>7332444.5<|\"|>}<tool_response|>"},
    {"qwen38", "templates/qwen35/chat_template.qwen3.8.jinja",
     "<tool_call>\\n<function=calculate>\\n<parameter=expression>\\n1234.5 * 6789 - 2^20\\n"
     "</parameter>\\n</function>\\n</tool_call>",
     272, 272, "<tool_response>\n7332444.5\n</tool_response>"},
};

class ToolLoopTest : public ::testing::TestWithParam<Family> {};

TEST_P(ToolLoopTest, DeclarationCallResultAnswer) {
  const Family& f = GetParam();
  const std::string shared = oxinfer::testing::FindSharedData(kTokenizer);
  if (shared.empty()) GTEST_SKIP() << "shared/data not found (the real templates)";
  const std::string dir = absl::StrCat(std::getenv("TEST_TMPDIR"), "/scripted_", f.name);
  ASSERT_EQ(system(("mkdir -p " + dir).c_str()), 0);
  WriteFile(dir, "config.json",
            absl::StrCat(R"({"model_type": "scripted", "vocab_size": 276, "stop_tokens": [)",
                         f.stop, R"(], "script": [[")", f.call, "\", ", f.call_end,
                         R"(], ["The answer is 7332444.5.", )", f.stop, "]]}"));
  WriteFile(dir, "generation_config.json",
            absl::StrCat(R"({"eos_token_id": [)", f.stop, ", ", f.call_end, "]}"));
  WriteFile(dir, "tokenizer.json",
            oxinfer::testing::ReadWholeFile(oxinfer::testing::Runfile(kTokenizer)));
  WriteFile(dir, "tokenizer_config.json",
            R"({"bos_token": "<bos>", "eos_token": "<eos>", "pad_token": "<pad>"})");
  WriteFile(dir, "chat_template.jinja",
            oxinfer::testing::ReadWholeFile(shared + "/" + f.template_path));

  auto engine = OpenEngine(dir);
  ASSERT_TRUE(engine.ok()) << engine.status();
  auto session = testing::GreedySession(**engine);
  session->AddMessage(Message::Text(Role::kSystem, "You run locally."));
  session->AddMessage(Message::Text(Role::kUser, "What is 1234.5 * 6789 - 2^20?"));
  ChatOptions chat;
  chat.tools = builtin_tools::Declarations();
  chat.template_kwargs.object().Set("enable_thinking", chat::Value(false));
  GenerationOptions options;
  options.max_tokens = 400;

  auto first = session->ChatPrompt(chat);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_TRUE(absl::StrContains(first->text, "calculate")) << first->text;
  EXPECT_TRUE(absl::StrContains(first->text, "get_current_datetime")) << first->text;

  std::vector<std::string> events;
  std::vector<std::string> results;
  auto run = [&](const ToolCall& call) -> std::optional<std::string> {
    return builtin_tools::Run(call);
  };
  auto on_event = [&](const StreamEvent& e) {
    if (e.tool_call != nullptr) events.push_back("call " + e.tool_call->name);
  };
  auto on_result = [&](const ToolCall& call, const std::string& result) {
    results.push_back(absl::StrCat(call.name, "(", call.ArgumentsJson(), ") -> ", result));
  };
  auto reply = RespondWithTools(*session, chat, options, run, on_event, on_result);
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(reply->content, "The answer is 7332444.5.");
  EXPECT_TRUE(reply->tool_calls.empty());
  EXPECT_EQ(events, std::vector<std::string>{"call calculate"});
  EXPECT_EQ(results, std::vector<std::string>{
                         R"(calculate({"expression":"1234.5 * 6789 - 2^20"}) -> 7332444.5)"});

  const std::vector<Message>& m = session->messages();
  ASSERT_EQ(m.size(), 5u);
  EXPECT_EQ(m[2].role, Role::kAssistant);
  ASSERT_EQ(m[2].tool_calls.size(), 1u);
  EXPECT_EQ(m[2].tool_calls[0].id, "call_1");
  EXPECT_EQ(m[2].JoinedText(), "");
  EXPECT_EQ(m[3].role, Role::kTool);
  EXPECT_EQ(m[3].JoinedText(), "7332444.5");
  EXPECT_EQ(m[4].JoinedText(), "The answer is 7332444.5.");

  // The answer reached the model through the template: the conversation up to
  // the tool's answer renders with it, as the second prompt did.
  session->SetMessages({m[0], m[1], m[2], m[3]});
  auto second = session->ChatPrompt(chat);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_TRUE(absl::StrContains(second->text, f.response)) << second->text;
  EXPECT_TRUE(absl::StartsWith(second->text, first->text.substr(0, first->text.size() - 40)));
}

INSTANTIATE_TEST_SUITE_P(Families, ToolLoopTest, ::testing::ValuesIn(kFamilies),
                         [](const ::testing::TestParamInfo<Family>& i) { return i.param.name; });

TEST(ToolLoopTest, CallsTheHostCannotRunEndTheLoop) {
  const std::string shared = oxinfer::testing::FindSharedData(kTokenizer);
  if (shared.empty()) GTEST_SKIP() << "shared/data not found (the real templates)";
  const std::string dir = absl::StrCat(std::getenv("TEST_TMPDIR"), "/scripted_unrun");
  ASSERT_EQ(system(("mkdir -p " + dir).c_str()), 0);
  WriteFile(
      dir, "config.json",
      R"({"model_type": "scripted", "vocab_size": 276, "stop_tokens": [260], "script": [)"
      R"(["<|tool_call>call:book{party:{size:4,names:[<|\"|>Ann<|\"|>]}}<tool_call|>", 264]]})");
  WriteFile(dir, "generation_config.json", R"({"eos_token_id": [260, 264]})");
  WriteFile(dir, "tokenizer.json",
            oxinfer::testing::ReadWholeFile(oxinfer::testing::Runfile(kTokenizer)));
  WriteFile(dir, "chat_template.jinja",
            oxinfer::testing::ReadWholeFile(
                shared + "/templates/gemma4/chat_template.31B-it.v4-2026-07-09.jinja"));
  auto engine = OpenEngine(dir);
  ASSERT_TRUE(engine.ok()) << engine.status();
  auto session = testing::GreedySession(**engine);
  session->AddMessage(Message::Text(Role::kUser, "Book for Ann and three more."));
  ChatOptions chat;
  chat.tools = *chat::Value::FromJson(
      R"([{"type": "function", "function": {"name": "book", "parameters": {"type": "object",
          "properties": {"party": {"type": "object"}}}}}])");
  int runs = 0;
  auto reply = RespondWithTools(*session, chat, GenerationOptions{}, [&](const ToolCall&) {
    ++runs;
    return std::optional<std::string>();
  });
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(runs, 1);
  ASSERT_EQ(reply->tool_calls.size(), 1u);
  EXPECT_EQ(reply->tool_calls[0].ArgumentsJson(), R"({"party":{"size":4,"names":["Ann"]}})");
  EXPECT_EQ(reply->content, "");
  EXPECT_EQ(session->messages().size(), 2u);
}

}  // namespace
}  // namespace oxinfer::engine
