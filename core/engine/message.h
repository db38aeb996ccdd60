// A conversation as sessions hold it: messages with a role and content parts,
// and how a chat template sees them (transformers' message dicts).
#ifndef OXINFER_CORE_ENGINE_MESSAGE_H_
#define OXINFER_CORE_ENGINE_MESSAGE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/chat/value.h"
#include "core/engine/tool_call.h"

namespace oxinfer::engine {

enum class Role { kSystem, kUser, kAssistant, kTool };

// "system", "user", "assistant", "tool": the names templates test for.
const char* RoleName(Role role);
// The role a name denotes; INVALID_ARGUMENT for any other name.
absl::StatusOr<Role> RoleFromName(absl::string_view name);

// One part of a message's content. Only text so far; image and audio parts
// join as further types (their data then goes to the model as embeddings).
struct ContentPart {
  enum class Type { kText };
  Type type = Type::kText;
  std::string text;
};

struct Message {
  // How a template sees the content: a string (the text parts joined), a
  // list of {"type": "text", "text": ...} parts, or absent (content null).
  enum class ContentForm { kString, kParts, kNone };

  Role role = Role::kUser;
  std::vector<ContentPart> content;
  ContentForm content_form = ContentForm::kString;
  // An assistant turn's reasoning trace, shown to templates as
  // reasoning_content (they decide whether to render it).
  std::string reasoning;
  // The calls an assistant turn made, shown to templates as OpenAI's
  // tool_calls: [{"id", "type": "function", "function": {"name", "arguments"}}].
  std::vector<ToolCall> tool_calls;
  // Further keys the template sees unchanged, in order (a dict): a tool
  // answer's tool_call_id and name, anything a messages file carried.
  chat::Value extra = chat::Value::Dict();

  static Message Text(Role role, std::string text);
  // A tool's answer to `call`.
  static Message ToolResult(const ToolCall& call, std::string result);
  // The text parts, concatenated.
  std::string JoinedText() const;
};

// INVALID_ARGUMENT naming the message, the part and the offset of the first
// byte that is not well-formed UTF-8 (text, reasoning): templates and
// tokenizers take text, not bytes.
absl::Status CheckMessagesUtf8(const std::vector<Message>& messages);

// The same for one text; `what` names it in the message ("-p", "the prompt").
absl::Status CheckUtf8(absl::string_view text, absl::string_view what);

// The messages as the template's `messages` list: {"role", "content"} dicts
// (content as content_form says), then reasoning_content when set,
// tool_calls when any, and the extra keys.
chat::Value MessagesForTemplate(const std::vector<Message>& messages);

}  // namespace oxinfer::engine

#endif  // OXINFER_CORE_ENGINE_MESSAGE_H_
