#include "core/engine/message.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/tokenizer/utf8.h"

namespace oxinfer::engine {
namespace {

constexpr Role kRoles[] = {Role::kSystem, Role::kUser, Role::kAssistant, Role::kTool};

}  // namespace

const char* RoleName(Role role) {
  switch (role) {
    case Role::kSystem:
      return "system";
    case Role::kUser:
      return "user";
    case Role::kAssistant:
      return "assistant";
    case Role::kTool:
      return "tool";
  }
  return "?";
}

absl::StatusOr<Role> RoleFromName(absl::string_view name) {
  for (Role r : kRoles) {
    if (name == RoleName(r)) return r;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown message role '", name, "' (expected system, user, assistant or tool)"));
}

Message Message::Text(Role role, std::string text) {
  Message m;
  m.role = role;
  m.content.push_back(ContentPart{ContentPart::Type::kText, std::move(text)});
  return m;
}

Message Message::ToolResult(const ToolCall& call, std::string result) {
  Message m = Text(Role::kTool, std::move(result));
  if (!call.id.empty()) m.extra.object().Set("tool_call_id", chat::Value(call.id));
  m.extra.object().Set("name", chat::Value(call.name));
  return m;
}

std::string Message::JoinedText() const {
  std::string out;
  for (const ContentPart& p : content) {
    if (p.type == ContentPart::Type::kText) out += p.text;
  }
  return out;
}

absl::Status CheckUtf8(absl::string_view text, absl::string_view what) {
  for (size_t pos = 0; pos < text.size();) {
    const size_t n = tokenizer::ValidSequenceLength(text, pos);
    if (n == 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s is not valid UTF-8: byte 0x%02x at offset %d", what,
                          static_cast<unsigned char>(text[pos]), pos));
    }
    pos += n;
  }
  return absl::OkStatus();
}

absl::Status CheckMessagesUtf8(const std::vector<Message>& messages) {
  for (size_t i = 0; i < messages.size(); ++i) {
    const Message& m = messages[i];
    for (const ContentPart& p : m.content) {
      if (p.type != ContentPart::Type::kText) continue;
      const std::string what = absl::StrFormat("message %d (%s)", i, RoleName(m.role));
      if (absl::Status s = CheckUtf8(p.text, what); !s.ok()) return s;
    }
    const std::string what = absl::StrFormat("message %d (%s)'s reasoning", i, RoleName(m.role));
    if (absl::Status s = CheckUtf8(m.reasoning, what); !s.ok()) return s;
  }
  return absl::OkStatus();
}

chat::Value MessagesForTemplate(const std::vector<Message>& messages) {
  std::vector<chat::Value> list;
  list.reserve(messages.size());
  for (const Message& m : messages) {
    chat::Value dict = chat::Value::Dict();
    dict.object().Set("role", chat::Value(RoleName(m.role)));
    switch (m.content_form) {
      case Message::ContentForm::kString:
        dict.object().Set("content", chat::Value(m.JoinedText()));
        break;
      case Message::ContentForm::kParts: {
        std::vector<chat::Value> parts;
        for (const ContentPart& p : m.content) {
          chat::Value part = chat::Value::Dict();
          part.object().Set("type", chat::Value("text"));
          part.object().Set("text", chat::Value(p.text));
          parts.push_back(std::move(part));
        }
        dict.object().Set("content", chat::Value::Array(std::move(parts)));
        break;
      }
      case Message::ContentForm::kNone:
        break;
    }
    if (!m.reasoning.empty()) dict.object().Set("reasoning_content", chat::Value(m.reasoning));
    if (!m.tool_calls.empty()) {
      std::vector<chat::Value> calls;
      for (const ToolCall& c : m.tool_calls) {
        chat::Value function = chat::Value::Dict();
        function.object().Set("name", chat::Value(c.name));
        function.object().Set("arguments", c.arguments);
        chat::Value call = chat::Value::Dict();
        if (!c.id.empty()) call.object().Set("id", chat::Value(c.id));
        call.object().Set("type", chat::Value("function"));
        call.object().Set("function", std::move(function));
        calls.push_back(std::move(call));
      }
      dict.object().Set("tool_calls", chat::Value::Array(std::move(calls)));
    }
    if (m.extra.is_dict()) {
      for (const auto& [k, v] : m.extra.object().items()) dict.object().Set(k, v);
    }
    list.push_back(std::move(dict));
  }
  return chat::Value::Array(std::move(list));
}

}  // namespace oxinfer::engine
