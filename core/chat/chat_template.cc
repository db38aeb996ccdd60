#include "core/chat/chat_template.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/limits.h"
#include "core/mapped_file.h"

namespace oxinfer::chat {
namespace {

// The named special tokens transformers passes to templates
// (PreTrainedTokenizerBase.SPECIAL_TOKENS_ATTRIBUTES).
constexpr const char* kSpecialTokenNames[] = {"bos_token", "eos_token", "unk_token", "sep_token",
                                              "pad_token", "cls_token", "mask_token"};

// Reasoning field names, the first is the one templates read.
constexpr const char* kReasoningFields[] = {"reasoning_content", "thinking", "reasoning"};

// The built-in templates are written here (not copied from any model); for
// text-only conversations without tools they render exactly what the
// official templates named below render (checked by tests against
// transformers' output).

// Gemma 2/3 (as google/gemma-3 tokenizer_config.json): system text folded
// into the first user turn.
// Bounded, and a FIFO or device is refused before it is opened for reading.
absl::StatusOr<std::string> ReadFile(const std::string& path, uint64_t max_bytes) {
  return ReadFileToString(path, max_bytes);
}

Value SpecialTokensFromConfig(const Value& config) {
  Value tokens = Value::Dict();
  if (!config.is_dict()) return tokens;
  for (const char* name : kSpecialTokenNames) {
    const Value* v = config.object().Find(name);
    if (!v) continue;
    if (v->is_string()) {
      tokens.object().Set(name, *v);
    } else if (v->is_dict()) {
      const Value* content = v->object().Find("content");
      if (content && content->is_string()) tokens.object().Set(name, *content);
    }
  }
  // Model-specific named tokens (transformers 5 exposes them the same way).
  const Value* extra = config.object().Find("extra_special_tokens");
  if (extra && extra->is_dict()) {
    for (const auto& [k, v] : extra->object().items()) {
      if (v.is_string()) tokens.object().Set(k, v);
    }
  }
  return tokens;
}

}  // namespace

absl::StatusOr<Value> NormalizeMessages(const Value& messages) {
  if (!messages.is_array()) return absl::InvalidArgumentError("messages must be a list");
  std::vector<Value> out;
  for (const Value& m : messages.array()) {
    if (!m.is_dict()) {
      return absl::InvalidArgumentError(
          absl::StrCat("chat messages must be dicts, got ", m.TypeName()));
    }
    Value copy = Value::Dict();
    for (const auto& [k, v] : m.object().items()) {
      if (!v.is_none()) copy.object().Set(k, v);
    }
    const Value* reasoning = nullptr;
    for (const char* f : kReasoningFields) {
      const Value* r = copy.object().Find(f);
      if (r && !r->is_none()) {
        reasoning = r;
        break;
      }
    }
    if (reasoning) {
      // {"thinking": r, **message, "reasoning_content": r}
      Value r = *reasoning;
      Value aliased = Value::Dict();
      aliased.object().Set("thinking", r);
      for (const auto& [k, v] : copy.object().items()) aliased.object().Set(k, v);
      aliased.object().Set("reasoning_content", r);
      copy = aliased;
    }
    out.push_back(copy);
  }
  return Value::Array(std::move(out));
}

absl::StatusOr<ChatTemplate> ChatTemplate::FromSource(absl::string_view source,
                                                      const Value& special_tokens) {
  auto t = JinjaTemplate::Parse(source);
  if (!t.ok()) {
    return absl::Status(t.status().code(), absl::StrCat("chat template: ", t.status().message()));
  }
  ChatTemplate ct;
  ct.templates_["default"] = std::make_shared<JinjaTemplate>(std::move(*t));
  ct.sources_ = std::string(source);
  if (special_tokens.is_dict()) {
    for (const auto& [k, v] : special_tokens.object().items())
      ct.special_tokens_.object().Set(k, v);
  }
  return ct;
}

absl::StatusOr<ChatTemplate> ChatTemplate::FromTokenizerConfig(absl::string_view json_text,
                                                               absl::string_view name) {
  auto config = Value::FromJson(json_text);
  if (!config.ok()) return config.status();
  if (!config->is_dict()) return absl::InvalidArgumentError("tokenizer_config is not an object");
  const Value* tmpl = config->object().Find("chat_template");
  if (!tmpl || tmpl->is_none()) {
    return absl::NotFoundError("tokenizer_config has no chat_template");
  }
  ChatTemplate ct;
  ct.special_tokens_ = SpecialTokensFromConfig(*config);
  auto add = [&](const std::string& n, const Value& src) -> absl::Status {
    if (!src.is_string()) return absl::InvalidArgumentError("chat_template must be a string");
    auto t = JinjaTemplate::Parse(src.as_string());
    if (!t.ok()) {
      return absl::Status(t.status().code(),
                          absl::StrCat("chat template '", n, "': ", t.status().message()));
    }
    ct.templates_[n] = std::make_shared<JinjaTemplate>(std::move(*t));
    ct.sources_ += src.as_string();
    return absl::OkStatus();
  };
  if (tmpl->is_string()) {
    absl::Status s = add("default", *tmpl);
    if (!s.ok()) return s;
  } else if (tmpl->is_array()) {
    for (const Value& item : tmpl->array()) {
      const Value* n = item.is_dict() ? item.object().Find("name") : nullptr;
      const Value* t = item.is_dict() ? item.object().Find("template") : nullptr;
      if (!n || !t || !n->is_string()) {
        return absl::InvalidArgumentError("chat_template list entries need name and template");
      }
      absl::Status s = add(n->as_string(), *t);
      if (!s.ok()) return s;
    }
  } else {
    return absl::InvalidArgumentError("chat_template must be a string or a list");
  }
  if (!name.empty()) {
    if (!ct.templates_.count(std::string(name))) {
      return absl::NotFoundError(absl::StrCat("no chat template named '", name, "'"));
    }
    ct.selected_ = std::string(name);
  }
  return ct;
}

absl::StatusOr<ChatTemplate> ChatTemplate::FromModelDir(const std::string& dir,
                                                        absl::string_view default_source,
                                                        const Value& default_special_tokens) {
  auto config_text = ReadFile(dir + "/tokenizer_config.json", limits::kConfigFileBytes);
  // Absent is fine; present but unreadable (a FIFO, too large) is an error.
  if (!config_text.ok() && !absl::IsNotFound(config_text.status())) return config_text.status();
  Value special = Value::Dict();
  if (config_text.ok()) {
    auto config = Value::FromJson(*config_text);
    if (!config.ok()) {
      return absl::Status(config.status().code(),
                          absl::StrCat(dir, "/tokenizer_config.json: ", config.status().message()));
    }
    special = SpecialTokensFromConfig(*config);
  }
  if (default_special_tokens.is_dict()) {
    for (const auto& [k, v] : default_special_tokens.object().items()) {
      if (!special.object().Find(k)) special.object().Set(k, v);
    }
  }
  auto with_defaults = [&](absl::StatusOr<ChatTemplate> t) -> absl::StatusOr<ChatTemplate> {
    if (t.ok()) t->special_tokens_ = special;
    return t;
  };
  auto jinja = ReadFile(dir + "/chat_template.jinja", limits::kTemplateFileBytes);
  if (jinja.ok()) return FromSource(*jinja, special);
  if (!absl::IsNotFound(jinja.status())) return jinja.status();
  if (config_text.ok()) {
    auto t = FromTokenizerConfig(*config_text);
    if (t.ok() || !absl::IsNotFound(t.status())) return with_defaults(std::move(t));
  }
  if (!default_source.empty()) return FromSource(default_source, special);
  return absl::NotFoundError(
      absl::StrCat(dir,
                   " has no chat template (neither chat_template.jinja nor a chat_template in "
                   "tokenizer_config.json)"));
}

std::vector<std::string> ChatTemplate::template_names() const {
  std::vector<std::string> names;
  for (const auto& kv : templates_) names.push_back(kv.first);
  return names;
}

absl::StatusOr<std::string> ChatTemplate::Render(const Value& messages, const Value& tools,
                                                 bool add_generation_prompt,
                                                 const Value& extra) const {
  const JinjaTemplate* t = nullptr;
  if (!selected_.empty()) {
    t = templates_.at(selected_).get();
  } else if (templates_.size() == 1) {
    t = templates_.begin()->second.get();
  } else {
    bool has_tools = !tools.is_none() && !tools.is_undefined();
    auto it = has_tools ? templates_.find("tool_use") : templates_.end();
    if (it == templates_.end()) it = templates_.find("default");
    if (it == templates_.end()) {
      return absl::FailedPreconditionError(
          "several chat templates and none is named 'default'; pick one by name");
    }
    t = it->second.get();
  }
  auto normalized = NormalizeMessages(messages);
  if (!normalized.ok()) return normalized.status();
  Value ctx = Value::Dict();
  Object& o = ctx.object();
  o.Set("messages", *normalized);
  o.Set("tools", tools.is_undefined() ? Value::None() : tools);
  o.Set("documents", Value::None());
  o.Set("add_generation_prompt", Value(add_generation_prompt));
  for (const auto& [k, v] : special_tokens_.object().items()) o.Set(k, v);
  if (extra.is_dict()) {
    for (const auto& [k, v] : extra.object().items()) o.Set(k, v);
  }
  return t->Render(ctx);
}

}  // namespace oxinfer::chat
