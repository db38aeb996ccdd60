// Messages and tools files: what templates get from them, and the errors
// that name the file and the entry.
#include "core/engine/conversation_json.h"

#include "gtest/gtest.h"

namespace oxinfer::engine {
namespace {

TEST(ConversationJsonTest, OpenAiMessagesBecomeTemplateDicts) {
  auto m = ParseMessagesJson(R"([
    {"role": "system", "content": "S"},
    {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
    {"role": "assistant", "content": null, "reasoning_content": "r", "tool_calls": [
      {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{\"z\": 1, \"a\": [true]}"}}]},
    {"role": "tool", "tool_call_id": "c1", "name": "f", "content": "ok", "x": {"k": null}}])",
                             "m.json");
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->size(), 4u);
  EXPECT_EQ(
      MessagesForTemplate(*m).Repr(),
      "[{'role': 'system', 'content': 'S'}, "
      "{'role': 'user', 'content': [{'type': 'text', 'text': 'a'}, {'type': 'text', 'text': "
      "'b'}]}, "
      "{'role': 'assistant', 'reasoning_content': 'r', 'tool_calls': [{'id': 'c1', 'type': "
      "'function', 'function': {'name': 'f', 'arguments': {'z': 1, 'a': [True]}}}]}, "
      "{'role': 'tool', 'content': 'ok', 'tool_call_id': 'c1', 'name': 'f', 'x': {'k': None}}]");
}

TEST(ConversationJsonTest, ErrorsNameTheFileAndTheEntry) {
  auto error = [](const char* json) {
    auto m = ParseMessagesJson(json, "conv.json");
    return m.ok() ? std::string("ok") : std::string(m.status().message());
  };
  EXPECT_EQ(error("{}"), "conv.json: expected a JSON list of messages");
  EXPECT_EQ(error("[1"), "conv.json: JSON: expected ',' or ']' at offset 2");
  EXPECT_EQ(error(R"([{"role": "user"}, {"content": "x"}])"),
            "conv.json: message 1: needs a string \"role\"");
  EXPECT_EQ(error(R"([{"role": "model", "content": "x"}])"),
            "conv.json: message 0: unknown message role 'model' (expected system, user, assistant "
            "or tool)");
  EXPECT_EQ(error(R"([{"role": "user", "content": 3}])"),
            "conv.json: message 0: content must be a string, null or a list of parts");
  EXPECT_EQ(error(R"([{"role": "assistant", "tool_calls": [{"function": {"name": "f",
                  "arguments": "{bad"}}]}])"),
            "conv.json: message 0, tool call 0: arguments are not valid JSON: JSON: expected "
            "key at offset 1");
  EXPECT_EQ(error(R"([{"role": "assistant", "tool_calls": [{"function": {"arguments": "{}"}}]}])"),
            "conv.json: message 0, tool call 0: function needs a \"name\"");
  EXPECT_EQ(error(R"([{"role": "user", "content": [{"type": "image"}]}])"),
            "conv.json: message 0, content part 0: parts of type 'image' are not supported here "
            "yet (text only)");
}

TEST(ConversationJsonTest, ToolsFiles) {
  EXPECT_TRUE(ParseToolsJson(R"([{"type": "function", "function": {"name": "f"}}])", "t").ok());
  auto error = [](const char* json) {
    auto t = ParseToolsJson(json, "tools.json");
    return t.ok() ? std::string("ok") : std::string(t.status().message());
  };
  EXPECT_EQ(error(R"({"type": "function"})"),
            "tools.json: expected a JSON list of {\"type\": \"function\", ...} tools");
  EXPECT_EQ(error(R"([{"type": "function", "function": {"name": "f"}}, {"function": {}}])"),
            "tools.json: tool 1: needs \"type\": \"function\"");
  EXPECT_EQ(error(R"([{"type": "function", "function": {"name": "f", "parameters": []}}])"),
            "tools.json: tool 0: function.parameters must be a JSON schema object");
}

}  // namespace
}  // namespace oxinfer::engine
