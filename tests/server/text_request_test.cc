// The server's request checks without HTTP: what each field becomes, and
// which field a refusal names.
#include "tools/server/text_request.h"

#include <string>

#include "gtest/gtest.h"
#include "tools/server/image_request.h"

namespace oxinfer::server {
namespace {

TextRequest Chat(const std::string& body) {
  TextRequest r;
  ApiError e;
  EXPECT_TRUE(ParseTextRequest(body, /*chat=*/true, &r, &e)) << e.message;
  return r;
}

ApiError Refused(const std::string& body, bool chat = true) {
  TextRequest r;
  ApiError e;
  EXPECT_FALSE(ParseTextRequest(body, chat, &r, &e)) << body;
  EXPECT_EQ(e.status, 400);
  return e;
}

constexpr char kUser[] = R"("messages": [{"role": "user", "content": "hi"}])";

TEST(TextRequestTest, DefaultsAreTheApis) {
  const TextRequest r = Chat(std::string("{") + kUser + "}");
  EXPECT_EQ(r.messages.size(), 1u);
  EXPECT_FLOAT_EQ(r.sampling.temperature, 1.0f);
  EXPECT_FLOAT_EQ(r.sampling.top_p, 1.0f);
  EXPECT_EQ(r.max_tokens, -1);
  EXPECT_FALSE(r.stream);
  EXPECT_FALSE(r.seed_given);
  EXPECT_TRUE(r.tools.is_none());
  // Thinking off unless asked, as the CLI.
  const chat::Value* thinking = r.template_kwargs.object().Find("enable_thinking");
  ASSERT_NE(thinking, nullptr);
  EXPECT_FALSE(thinking->as_bool());
}

TEST(TextRequestTest, Fields) {
  const TextRequest r = Chat(std::string("{") + kUser +
                             R"(, "temperature": 0, "top_p": 0.5, "seed": 9, "stop": "END",
      "max_completion_tokens": 7, "stream": true, "stream_options": {"include_usage": true},
      "chat_template_kwargs": {"enable_thinking": true}, "user": "ignored", "n": 1})");
  EXPECT_FLOAT_EQ(r.sampling.temperature, 0.0f);
  EXPECT_FLOAT_EQ(r.sampling.top_p, 0.5f);
  EXPECT_TRUE(r.seed_given);
  EXPECT_EQ(r.sampling.seed, 9u);
  ASSERT_EQ(r.stop.size(), 1u);
  EXPECT_EQ(r.stop[0], "END");
  EXPECT_EQ(r.max_tokens, 7);
  EXPECT_TRUE(r.stream);
  EXPECT_TRUE(r.include_usage);
  EXPECT_TRUE(r.template_kwargs.object().Find("enable_thinking")->as_bool());
}

TEST(TextRequestTest, ToolChoiceNoneHidesTheTools) {
  const std::string tools =
      R"("tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}])";
  EXPECT_TRUE(Chat(std::string("{") + kUser + ", " + tools + "}").tools.is_array());
  EXPECT_TRUE(Chat(std::string("{") + kUser + ", " + tools + R"(, "tool_choice": "none"})")
                  .tools.is_none());
  EXPECT_EQ(
      Refused(std::string("{") + kUser + ", " + tools + R"(, "tool_choice": "required"})").param,
      "tool_choice");
  EXPECT_EQ(Refused(std::string("{") + kUser +
                    R"(, "tool_choice": {"type": "function", "function": {"name": "f"}}})")
                .param,
            "tool_choice");
}

TEST(TextRequestTest, RefusalsNameTheField) {
  const std::string u = std::string("{") + kUser + ", ";
  EXPECT_EQ(Refused(u + R"("temperature": -1})").param, "temperature");
  EXPECT_EQ(Refused(u + R"("temperature": true})").param, "temperature");
  EXPECT_EQ(Refused(u + R"("max_tokens": 1.5})").param, "max_tokens");
  EXPECT_EQ(Refused(u + R"("max_tokens": 1e30})").param, "max_tokens");
  EXPECT_EQ(Refused(u + R"("seed": "x"})").param, "seed");
  EXPECT_EQ(Refused(u + R"("stop": ""})").param, "stop");
  EXPECT_EQ(Refused(u + R"("stream_options": {"include_usage": true}})").param, "stream_options");
  EXPECT_EQ(Refused(u + R"("logprobs": true})").param, "logprobs");
  EXPECT_EQ(Refused(u + R"("response_format": {"type": "json_object"}})").param, "response_format");
  EXPECT_EQ(Refused(u + R"("frequency_penalty": 0.5})").param, "frequency_penalty");
  EXPECT_EQ(Refused(R"({"messages": [{"role": "user", "content": "a\ud800"}]})").param, "");
  EXPECT_EQ(Refused(R"({"messages": {}})").param, "messages");
  EXPECT_EQ(Refused(R"({"messages": [], "messages": []})").param, "");  // duplicate key
  EXPECT_EQ(Refused("[]").param, "");
  EXPECT_EQ(Refused(R"({"prompt": 3})", /*chat=*/false).param, "prompt");
  EXPECT_EQ(Refused(R"({"prompt": "x", "echo": true})", /*chat=*/false).param, "echo");
}

TEST(TextRequestTest, CompletionPrompt) {
  TextRequest r;
  ApiError e;
  ASSERT_TRUE(ParseTextRequest(R"({"prompt": ["raw <b>text"], "max_tokens": 3})", false, &r, &e));
  EXPECT_EQ(r.prompt, "raw <b>text");
  EXPECT_FALSE(r.chat);
}

TEST(ImageRequestTest, FieldsAndRefusals) {
  ImageJob job;
  ApiError e;
  ASSERT_TRUE(ParseImageRequest(R"({"prompt": "a fox", "n": 3, "size": "256x128", "seed": 5,
      "steps": 4, "guidance_scale": 2.5, "sampler": "euler", "negative_prompt": "dark"})",
                                &job, &e))
      << e.message;
  EXPECT_EQ(job.n, 3);
  EXPECT_EQ(job.base.width, 256);
  EXPECT_EQ(job.base.height, 128);
  EXPECT_EQ(job.base.seed, 5u);
  EXPECT_EQ(job.base.steps, 4);
  EXPECT_FLOAT_EQ(job.base.guidance, 2.5f);
  EXPECT_EQ(job.base.sampler, "euler");
  EXPECT_EQ(job.base.negative_prompt, "dark");
  for (const auto& [body, param] :
       {std::pair<const char*, const char*>{R"({})", "prompt"},
        {R"({"prompt": "x", "n": 11})", "n"},
        {R"({"prompt": "x", "size": "0x0"})", "size"},
        {R"({"prompt": "x", "size": "9999x64"})", "size"},
        {R"({"prompt": "x", "response_format": "url"})", "response_format"},
        {R"({"prompt": "x", "sampler": "ddim"})", "sampler"}}) {
    ImageJob j;
    ApiError err;
    EXPECT_FALSE(ParseImageRequest(body, &j, &err)) << body;
    EXPECT_EQ(err.param, param) << body;
  }
}

}  // namespace
}  // namespace oxinfer::server
