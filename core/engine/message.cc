#include "core/engine/message.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

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

std::string Message::JoinedText() const {
  std::string out;
  for (const ContentPart& p : content) {
    if (p.type == ContentPart::Type::kText) out += p.text;
  }
  return out;
}

chat::Value MessagesForTemplate(const std::vector<Message>& messages) {
  std::vector<chat::Value> list;
  list.reserve(messages.size());
  for (const Message& m : messages) {
    chat::Value dict = chat::Value::Dict();
    dict.object().Set("role", chat::Value(RoleName(m.role)));
    // Only text parts exist so far, so the content is always a string; media
    // parts will make it a list of {"type", ...} dicts as transformers does.
    dict.object().Set("content", chat::Value(m.JoinedText()));
    if (!m.reasoning.empty()) dict.object().Set("reasoning_content", chat::Value(m.reasoning));
    list.push_back(std::move(dict));
  }
  return chat::Value::Array(std::move(list));
}

}  // namespace oxinfer::engine
