// Messages and tools files: what templates get from them, and the errors
// that name the file and the entry.
#include "core/engine/conversation_json.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
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
  EXPECT_EQ(error(R"([{"role": "user", "content": [{"type": "image", "path": "a.png"}]}])"),
            "conv.json: message 0, content part 0: image and audio parts are not accepted here");
  EXPECT_EQ(error(R"([{"role": "user", "content": [{"type": "video", "path": "a.mp4"}]}])"),
            "conv.json: message 0, content part 0: parts of type 'video' are not supported (text, "
            "image_url, input_audio, image, audio)");
}

// What each spelling of a media part refers to, as a loader receives it.
TEST(ConversationJsonTest, MediaPartsInEverySpelling) {
  std::vector<MediaReference> seen;
  std::vector<std::string> names;
  const MediaLoader record = [&](const MediaReference& ref,
                                 const std::string& name) -> absl::StatusOr<ContentPart> {
    seen.push_back(ref);
    names.push_back(name);
    ContentPart part;
    part.type = ref.type;
    return part;
  };
  auto messages = ParseMessagesJson(R"([{"role": "user", "content": [
      {"type": "image_url", "image_url": {"url": "data:image/png;base64,aGk="}},
      {"type": "image_url", "image_url": "file:///tmp/a%20b.png"},
      {"type": "input_audio", "input_audio": {"data": "AAEC", "format": "wav"}},
      {"type": "image", "path": "rel/x.jpg"},
      {"type": "audio", "url": "file://localhost/c.wav"},
      {"type": "audio", "audio": "DATA:audio/wav;BASE64,AA=="},
      {"type": "text", "text": "What?"}]}])",
                                    "conv.json", record);
  ASSERT_TRUE(messages.ok()) << messages.status();
  ASSERT_EQ(seen.size(), 6u);
  using S = MediaReference::Source;
  using T = ContentPart::Type;
  const struct {
    T type;
    S source;
    std::string data;
  } want[] = {{T::kImage, S::kBytes, "hi"},
              {T::kImage, S::kPath, "/tmp/a b.png"},
              {T::kAudio, S::kBytes, std::string("\x00\x01\x02", 3)},
              {T::kImage, S::kPath, "rel/x.jpg"},
              {T::kAudio, S::kPath, "/c.wav"},
              {T::kAudio, S::kBytes, std::string(1, '\0')}};
  for (size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i].type, want[i].type) << i;
    EXPECT_EQ(seen[i].source, want[i].source) << i;
    EXPECT_EQ(seen[i].data, want[i].data) << i;
    EXPECT_EQ(names[i], absl::StrCat("conv.json: message 0, content part ", i)) << i;
  }
  const Message& m = (*messages)[0];
  ASSERT_EQ(m.content.size(), 7u);
  EXPECT_TRUE(m.HasMedia());
  EXPECT_EQ(m.content[6].text, "What?");

  auto error = [&](const char* part) {
    auto r = ParseMessagesJson(absl::StrCat(R"([{"role": "user", "content": [)", part, "]}]"),
                               "conv.json", record);
    return r.ok() ? std::string("ok") : std::string(r.status().message());
  };
  const std::string at = "conv.json: message 0, content part 0: ";
  EXPECT_EQ(error(R"({"type": "image_url", "image_url": {"url": "https://x.org/a.png"}})"),
            at + "http(s) URLs are not fetched; give the file as a base64 data: URL or a local "
                 "path");
  EXPECT_EQ(error(R"({"type": "image_url", "image_url": {"url": "data:image/png,abc"}})"),
            at + "only base64 data: URLs are accepted (data:...;base64,...)");
  EXPECT_EQ(error(R"({"type": "image_url", "image_url": {"url": "data:;base64,%%"}})"),
            at + "the data: URL's data is not valid base64");
  EXPECT_EQ(error(R"({"type": "image_url", "image_url": {"url": "data:;base64,"}})"),
            at + "the data: URL's data is empty");
  EXPECT_EQ(error(R"({"type": "image_url", "image_url": {"url": "file://host/a.png"}})"),
            at + "a file:// URL needs an absolute path (file:///...)");
  EXPECT_EQ(error(R"({"type": "image_url", "image_url": {"url": "file:///a%2"}})"),
            at + "a bad %-escape in the file:// URL");
  EXPECT_EQ(error(R"({"type": "image_url", "image_url": {"url": "file:///a%00b"}})"),
            at + "the file:// URL holds a NUL byte");
  EXPECT_EQ(error(R"({"type": "image_url"})"),
            at + "an image_url part needs \"image_url\": {\"url\": ...}");
  EXPECT_EQ(error(R"({"type": "input_audio", "input_audio": {"data": "AA==", "format": 3}})"),
            at + "input_audio.format must be a string");
  EXPECT_EQ(error(R"({"type": "image", "path": 3})"), at + "\"path\" must be a string");
  EXPECT_EQ(error(R"({"type": "image", "path": ""})"), at + "the path is empty");
  EXPECT_EQ(error(R"({"type": "audio"})"),
            at + "an audio part needs \"url\", \"path\" or \"audio\" (a data: URL or a path)");

  // A loader's refusal of a file names the entry; of bytes, the loader names them.
  const MediaLoader refuse = [](const MediaReference& ref,
                                const std::string& name) -> absl::StatusOr<ContentPart> {
    return absl::NotFoundError(ref.source == MediaReference::Source::kPath
                                   ? absl::StrCat(ref.data, ": cannot open the file")
                                   : absl::StrCat(name, ": not an image"));
  };
  auto a =
      ParseMessagesJson(R"([{"role": "user", "content": [{"type": "image", "path": "q.png"}]}])",
                        "conv.json", refuse);
  EXPECT_EQ(a.status().message(), at + "q.png: cannot open the file");
  auto b = ParseMessagesJson(
      R"([{"role": "user", "content": [{"type": "image", "url": "data:;base64,AA=="}]}])",
      "conv.json", refuse);
  EXPECT_EQ(b.status().message(), at + "not an image");
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
