// The C API's rules through the real plugin path: statuses with messages,
// sessions on several threads, a busy session refused, cancellation from
// another thread, undecodable media parts refused, and tool calls as events with
// their results fed back (the scripted model and the real Gemma 4 template).
#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "oxinfer/oxinfer.h"
#include "tests/engine/engine_test_support.h"
#include "tests/support/shared_data.h"
#include "tests/support/test_backends.h"

namespace {

using oxinfer::engine::testing::MakeModel;
using oxinfer::engine::testing::WriteFile;
using oxinfer::testing::Runfile;

std::string FolderOf(const std::string& p) { return p.substr(0, p.rfind('/')); }

std::string PluginDirs() {
  return absl::StrCat(FolderOf(Runfile("tests/engine/liboxinfer_engine_test_model.so")), ":",
                      FolderOf(Runfile("plugins/backends/cpu/liboxinfer_cpu_scalar.so")));
}

oxinfer_engine* Open(const std::string& dir, int max_sessions = 2) {
  const std::string plugins = PluginDirs();
  oxinfer_engine_options o;
  oxinfer_engine_options_init(&o);
  o.model_dir = dir.c_str();
  o.plugin_dirs = plugins.c_str();
  o.device = "cpu";
  o.max_sessions = max_sessions;
  oxinfer_engine* engine = nullptr;
  EXPECT_EQ(oxinfer_engine_open(&o, &engine), OXINFER_OK) << oxinfer_last_error();
  return engine;
}

const char kTemplate[] =
    R"("default_chat_template": "{% for m in messages %}{{ m.content }}{% endfor %}")";

TEST(CApiTest, FailuresComeWithAStatusAndAMessage) {
  EXPECT_EQ(oxinfer_api_version() >> 16, static_cast<uint32_t>(OXINFER_API_VERSION_MAJOR));
  const std::string plugins = PluginDirs();
  oxinfer_engine_options o;
  oxinfer_engine_options_init(&o);
  o.plugin_dirs = plugins.c_str();
  o.device = "cpu";
  o.model_dir = "/nonexistent/folder";
  oxinfer_engine* engine = nullptr;
  const oxinfer_status s = oxinfer_engine_open(&o, &engine);
  EXPECT_NE(s, OXINFER_OK);
  EXPECT_EQ(engine, nullptr);
  EXPECT_NE(std::string(oxinfer_last_error()).find("/nonexistent/folder"), std::string::npos)
      << oxinfer_last_error();
  o.model_dir = "x";
  o.quantization = "q3";
  EXPECT_EQ(oxinfer_engine_open(&o, &engine), OXINFER_INVALID_ARGUMENT);
  EXPECT_STREQ(oxinfer_last_error(), "options.quantization 'q3': expected \"q8\" or \"q4\"");
  char* out = nullptr;
  EXPECT_EQ(oxinfer_builtin_tool_run("rm", "{}", &out), OXINFER_NOT_FOUND);
  EXPECT_EQ(oxinfer_builtin_tool_run("calculate", "{\"expression\": \"2^-2\"}", &out), OXINFER_OK);
  EXPECT_STREQ(out, "0.25");
  oxinfer_string_free(out);
}

TEST(CApiTest, SessionsOnSeveralThreadsAndTheirRules) {
  const auto model = MakeModel("capi_threads", absl::StrCat(R"("stop_tokens": [1], )", kTemplate));
  oxinfer_engine* engine = Open(model.dir);
  ASSERT_NE(engine, nullptr);
  oxinfer_session* a = nullptr;
  oxinfer_session* b = nullptr;
  ASSERT_EQ(oxinfer_session_new(engine, nullptr, &a), OXINFER_OK);
  ASSERT_EQ(oxinfer_session_new(engine, nullptr, &b), OXINFER_OK);
  oxinfer_session* c = nullptr;
  EXPECT_EQ(oxinfer_session_new(engine, nullptr, &c), OXINFER_RESOURCE_EXHAUSTED);
  EXPECT_EQ(oxinfer_engine_close(engine), OXINFER_FAILED_PRECONDITION);

  // Two sessions generate at once.
  std::vector<std::string> texts(2);
  auto generate = [&](oxinfer_session* s, int i) {
    ASSERT_EQ(oxinfer_session_add_text(s, OXINFER_ROLE_USER, i == 0 ? "abc" : "xyz"), OXINFER_OK);
    oxinfer_generate_options g;
    oxinfer_generate_options_init(&g);
    g.max_tokens = 5;
    oxinfer_reply* reply = nullptr;
    ASSERT_EQ(oxinfer_session_generate(s, &g, nullptr, nullptr, &reply), OXINFER_OK)
        << oxinfer_last_error();
    EXPECT_EQ(reply->generated_tokens, 5);
    texts[i] = reply->content;
    oxinfer_reply_free(reply);
  };
  std::thread ta(generate, a, 0), tb(generate, b, 1);
  ta.join();
  tb.join();
  EXPECT_FALSE(texts[0].empty());
  EXPECT_NE(texts[0], texts[1]);

  // A session busy on one thread refuses another thread's call at once, and
  // is cancelled from it.
  std::atomic<bool> in_callback{false}, release{false};
  oxinfer_generate_options g;
  oxinfer_generate_options_init(&g);
  g.max_tokens = 40;
  struct Ctx {
    std::atomic<bool>* in_callback;
    std::atomic<bool>* release;
  } ctx{&in_callback, &release};
  oxinfer_reply* reply = nullptr;
  std::thread busy([&] {
    ASSERT_EQ(oxinfer_session_add_text(a, OXINFER_ROLE_USER, "more"), OXINFER_OK);
    oxinfer_session_generate(
        a, &g,
        [](void* user, const oxinfer_event*) {
          auto* c = static_cast<Ctx*>(user);
          c->in_callback->store(true);
          while (!c->release->load()) std::this_thread::yield();
          return 0;
        },
        &ctx, &reply);
  });
  while (!in_callback.load()) std::this_thread::yield();
  EXPECT_EQ(oxinfer_session_add_text(a, OXINFER_ROLE_USER, "x"), OXINFER_FAILED_PRECONDITION);
  EXPECT_NE(std::string(oxinfer_last_error()).find("in use by another thread"), std::string::npos);
  oxinfer_session_cancel(a);
  release.store(true);
  busy.join();
  ASSERT_NE(reply, nullptr);
  EXPECT_EQ(reply->stop_reason, OXINFER_STOP_CANCELLED);
  EXPECT_LT(reply->generated_tokens, 40);
  oxinfer_reply_free(reply);

  // A media part that does not decode is refused, naming it; the message is not added.
  const unsigned char png[] = {0x89, 'P', 'N', 'G'};
  oxinfer_content_part parts[2] = {};
  parts[0].struct_size = sizeof parts[0];
  parts[0].type = OXINFER_PART_TEXT;
  parts[0].text = "What is this?";
  parts[1].struct_size = sizeof parts[1];
  parts[1].type = OXINFER_PART_IMAGE;
  parts[1].data = png;
  parts[1].size = sizeof png;
  char* before = nullptr;
  ASSERT_EQ(oxinfer_session_messages_json(b, &before), OXINFER_OK);
  EXPECT_NE(oxinfer_session_add_message(b, OXINFER_ROLE_USER, parts, 2), OXINFER_OK);
  EXPECT_NE(std::string(oxinfer_last_error()).find("parts[1]"), std::string::npos)
      << oxinfer_last_error();
  char* after = nullptr;
  ASSERT_EQ(oxinfer_session_messages_json(b, &after), OXINFER_OK);
  EXPECT_STREQ(before, after);
  oxinfer_string_free(before);
  oxinfer_string_free(after);

  oxinfer_session_free(a);
  oxinfer_session_free(b);
  EXPECT_EQ(oxinfer_engine_close(engine), OXINFER_OK);
}

TEST(CApiTest, ToolCallsAreEventsAndTheirResultsGoBack) {
  const std::string shared =
      oxinfer::testing::FindSharedData("tests/engine/testdata/byte_tokenizer/tokenizer.json");
  if (shared.empty()) GTEST_SKIP() << "shared/data not found (the real templates)";
  const std::string dir = absl::StrCat(std::getenv("TEST_TMPDIR"), "/capi_scripted");
  ASSERT_EQ(system(("mkdir -p " + dir).c_str()), 0);
  WriteFile(
      dir, "config.json",
      R"({"model_type": "scripted", "vocab_size": 276, "stop_tokens": [260], "script": [)"
      R"(["<|tool_call>call:calculate{expression:<|\"|>1234.5 * 6789 - 2^20<|\"|>}<tool_call|>", 264],)"
      R"(["It is 7332444.5.", 260]]})");
  WriteFile(dir, "generation_config.json", R"({"eos_token_id": [260, 264]})");
  WriteFile(dir, "tokenizer.json",
            oxinfer::testing::ReadWholeFile(
                Runfile("tests/engine/testdata/byte_tokenizer/tokenizer.json")));
  WriteFile(dir, "chat_template.jinja",
            oxinfer::testing::ReadWholeFile(
                shared + "/templates/gemma4/chat_template.E2B-E4B-it.v4-2026-07-09.jinja"));
  oxinfer_engine* engine = Open(dir, 1);
  ASSERT_NE(engine, nullptr);
  oxinfer_model_info info;
  info.struct_size = sizeof info;
  ASSERT_EQ(oxinfer_engine_model_info(engine, &info), OXINFER_OK);
  EXPECT_STREQ(info.tool_format, "gemma4");
  oxinfer_session* s = nullptr;
  ASSERT_EQ(oxinfer_session_new(engine, nullptr, &s), OXINFER_OK);
  char* tools = nullptr;
  ASSERT_EQ(oxinfer_builtin_tools_json(&tools), OXINFER_OK);
  ASSERT_EQ(oxinfer_session_set_tools_json(s, tools), OXINFER_OK);
  oxinfer_string_free(tools);
  EXPECT_EQ(oxinfer_session_set_tools_json(s, "[{\"type\": \"nope\"}]"), OXINFER_INVALID_ARGUMENT);
  ASSERT_EQ(oxinfer_session_add_text(s, OXINFER_ROLE_USER, "1234.5 * 6789 - 2^20?"), OXINFER_OK);

  std::vector<std::string> calls;
  auto on_event = [](void* user, const oxinfer_event* e) {
    if (e->type == OXINFER_EVENT_TOOL_CALL) {
      static_cast<std::vector<std::string>*>(user)->push_back(
          absl::StrCat(e->tool_call_id, " ", e->tool_name, " ", e->tool_arguments_json));
    }
    return 0;
  };
  oxinfer_reply* reply = nullptr;
  ASSERT_EQ(oxinfer_session_generate(s, nullptr, on_event, &calls, &reply), OXINFER_OK)
      << oxinfer_last_error();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0], R"(call_1 calculate {"expression":"1234.5 * 6789 - 2^20"})");
  ASSERT_EQ(reply->n_tool_calls, 1u);
  char* result = nullptr;
  ASSERT_EQ(oxinfer_builtin_tool_run(reply->tool_calls[0].name, reply->tool_calls[0].arguments_json,
                                     &result),
            OXINFER_OK);
  EXPECT_STREQ(result, "7332444.5");
  ASSERT_EQ(oxinfer_session_add_tool_result(s, reply->tool_calls[0].id, reply->tool_calls[0].name,
                                            result),
            OXINFER_OK);
  oxinfer_string_free(result);
  oxinfer_reply_free(reply);
  char* prompt = nullptr;
  ASSERT_EQ(oxinfer_session_render_prompt(s, nullptr, &prompt), OXINFER_OK);
  EXPECT_NE(std::string(prompt).find(
                "<|tool_response>response:calculate{value:<|\"|>7332444.5<|\"|>}<tool_response|>"),
            std::string::npos)
      << prompt;
  oxinfer_string_free(prompt);
  ASSERT_EQ(oxinfer_session_generate(s, nullptr, nullptr, nullptr, &reply), OXINFER_OK);
  EXPECT_STREQ(reply->content, "It is 7332444.5.");
  oxinfer_reply_free(reply);
  oxinfer_session_free(s);
  EXPECT_EQ(oxinfer_engine_close(engine), OXINFER_OK);
}

}  // namespace
