#include "core/engine/conversation_json.h"

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/engine/media_reference.h"
#include "core/mapped_file.h"

namespace oxinfer::engine {
namespace {

using chat::Value;

constexpr uint64_t kMaxConversationBytes = uint64_t{64} << 20;

absl::Status Bad(absl::string_view source, absl::string_view where, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(source, ": ", where, ": ", what));
}

absl::Status ReadMediaPart(const Value& part, const MediaLoader* load_media, Message* m,
                           absl::string_view source, const std::string& at) {
  if (load_media == nullptr || !*load_media) {
    return absl::UnimplementedError(
        absl::StrCat(source, ": ", at, ": image and audio parts are not accepted here"));
  }
  auto ref = ParseMediaReference(part);
  if (!ref.ok()) return Bad(source, at, ref.status().message());
  const std::string name = absl::StrCat(source, ": ", at);
  auto loaded = (*load_media)(*ref, name);
  // Errors about bytes name them by `name`; those about a file name the file.
  if (!loaded.ok() && ref->source == MediaReference::Source::kPath) {
    return absl::Status(loaded.status().code(),
                        absl::StrCat(name, ": ", loaded.status().message()));
  }
  if (!loaded.ok()) return loaded.status();
  m->content.push_back(*std::move(loaded));
  return absl::OkStatus();
}

absl::Status ReadContent(const Value& content, const MediaLoader* load_media, Message* m,
                         absl::string_view source, const std::string& where) {
  if (content.is_none()) {
    m->content_form = Message::ContentForm::kNone;
    return absl::OkStatus();
  }
  if (content.is_string()) {
    m->content.push_back(ContentPart{ContentPart::Type::kText, content.as_string()});
    return absl::OkStatus();
  }
  if (!content.is_array()) {
    return Bad(source, where, "content must be a string, null or a list of parts");
  }
  m->content_form = Message::ContentForm::kParts;
  for (size_t i = 0; i < content.array().size(); ++i) {
    const Value& part = content.array()[i];
    const std::string at = absl::StrCat(where, ", content part ", i);
    const Value* type = part.is_dict() ? part.object().Find("type") : nullptr;
    if (type == nullptr || !type->is_string()) return Bad(source, at, "needs a \"type\"");
    if (IsMediaPartType(type->as_string())) {
      if (absl::Status s = ReadMediaPart(part, load_media, m, source, at); !s.ok()) return s;
      continue;
    }
    if (type->as_string() != "text") {
      return absl::UnimplementedError(
          absl::StrCat(source, ": ", at, ": parts of type '", type->as_string(),
                       "' are not supported (text, image_url, input_audio, image, audio)"));
    }
    const Value* text = part.object().Find("text");
    if (text == nullptr || !text->is_string()) return Bad(source, at, "needs a string \"text\"");
    m->content.push_back(ContentPart{ContentPart::Type::kText, text->as_string()});
  }
  return absl::OkStatus();
}

absl::Status ReadToolCalls(const Value& calls, Message* m, absl::string_view source,
                           const std::string& where) {
  if (!calls.is_array()) return Bad(source, where, "tool_calls must be a list");
  for (size_t i = 0; i < calls.array().size(); ++i) {
    const Value& c = calls.array()[i];
    const std::string at = absl::StrCat(where, ", tool call ", i);
    if (!c.is_dict()) return Bad(source, at, "must be an object");
    const Value* function = c.object().Find("function");
    if (function == nullptr || !function->is_dict()) {
      return Bad(source, at, "needs a \"function\" object");
    }
    ToolCall call;
    const Value* name = function->object().Find("name");
    if (name == nullptr || !name->is_string() || name->as_string().empty()) {
      return Bad(source, at, "function needs a \"name\"");
    }
    call.name = name->as_string();
    if (const Value* id = c.object().Find("id"); id != nullptr && id->is_string()) {
      call.id = id->as_string();
    }
    const Value* args = function->object().Find("arguments");
    if (args != nullptr && args->is_string()) {
      auto parsed = ParseArgumentsJson(args->as_string());
      if (!parsed.ok()) return Bad(source, at, parsed.status().message());
      call.arguments = *std::move(parsed);
    } else if (args != nullptr && args->is_dict()) {
      call.arguments = *args;
    } else if (args != nullptr && !args->is_none()) {
      return Bad(source, at, "function.arguments must be a JSON string or an object");
    }
    m->tool_calls.push_back(std::move(call));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<Message>> MessagesFromValue(const Value& list, absl::string_view source,
                                                       const MediaLoader& load_media) {
  if (!list.is_array()) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": expected a JSON list of messages"));
  }
  std::vector<Message> messages;
  for (size_t i = 0; i < list.array().size(); ++i) {
    const Value& entry = list.array()[i];
    const std::string where = absl::StrCat("message ", i);
    if (!entry.is_dict()) return Bad(source, where, "must be an object");
    const Value* role = entry.object().Find("role");
    if (role == nullptr || !role->is_string()) return Bad(source, where, "needs a string \"role\"");
    auto r = RoleFromName(role->as_string());
    if (!r.ok()) return Bad(source, where, r.status().message());
    Message m;
    m.role = *r;
    m.content_form = Message::ContentForm::kNone;  // until a content key says otherwise
    for (const auto& [key, value] : entry.object().items()) {
      absl::Status s;
      if (key == "role") continue;
      if (key == "content") {
        m.content_form = Message::ContentForm::kString;
        s = ReadContent(value, &load_media, &m, source, where);
      } else if (key == "tool_calls" && !value.is_none()) {
        s = ReadToolCalls(value, &m, source, where);
      } else if (key == "reasoning_content" && value.is_string()) {
        m.reasoning = value.as_string();
      } else {
        m.extra.object().Set(key, value);
      }
      if (!s.ok()) return s;
    }
    messages.push_back(std::move(m));
  }
  return messages;
}

absl::StatusOr<std::vector<Message>> ParseMessagesJson(absl::string_view json,
                                                       absl::string_view source,
                                                       const MediaLoader& load_media) {
  auto value = Value::FromJson(json);
  if (!value.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": ", value.status().message()));
  }
  return MessagesFromValue(*value, source, load_media);
}

absl::Status CheckTools(const Value& tools, absl::string_view source) {
  if (!tools.is_array()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": expected a JSON list of {\"type\": \"function\", ...} tools"));
  }
  for (size_t i = 0; i < tools.array().size(); ++i) {
    const Value& t = tools.array()[i];
    const std::string where = absl::StrCat("tool ", i);
    if (!t.is_dict()) return Bad(source, where, "must be an object");
    const Value* type = t.object().Find("type");
    if (type == nullptr || !type->is_string() || type->as_string() != "function") {
      return Bad(source, where, "needs \"type\": \"function\"");
    }
    const Value* function = t.object().Find("function");
    if (function == nullptr || !function->is_dict()) {
      return Bad(source, where, "needs a \"function\" object");
    }
    const Value* name = function->object().Find("name");
    if (name == nullptr || !name->is_string() || name->as_string().empty()) {
      return Bad(source, where, "function needs a \"name\"");
    }
    const Value* params = function->object().Find("parameters");
    if (params != nullptr && !params->is_dict()) {
      return Bad(source, where, "function.parameters must be a JSON schema object");
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Value> ParseToolsJson(absl::string_view json, absl::string_view source) {
  auto value = Value::FromJson(json);
  if (!value.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": ", value.status().message()));
  }
  if (absl::Status s = CheckTools(*value, source); !s.ok()) return s;
  return value;
}

absl::StatusOr<std::string> ReadConversationFile(const std::string& path) {
  return ReadFileToString(path, kMaxConversationBytes);
}

}  // namespace oxinfer::engine
