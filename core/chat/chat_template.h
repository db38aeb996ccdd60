// Chat templates: turning a conversation into the prompt text a model expects.
//
// Renders HuggingFace chat templates (Jinja, see jinja.h) exactly as
// transformers' `tokenizer.apply_chat_template(..., tokenize=False)` does:
// the messages are normalized the same way (keys whose value is None are
// dropped; `reasoning_content` / `thinking` / `reasoning` are aliased to each
// other) and the template sees `messages`, `tools`, `documents`,
// `add_generation_prompt`, the tokenizer's named special tokens (bos_token,
// eos_token, ...) and any extra keyword arguments (enable_thinking, ...).
//
// Messages and tools are JSON-like values (Value::FromJson parses them).
#ifndef OXINFER_CORE_CHAT_CHAT_TEMPLATE_H_
#define OXINFER_CORE_CHAT_CHAT_TEMPLATE_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/chat/jinja.h"
#include "core/chat/value.h"

namespace oxinfer::chat {

class ChatTemplate {
 public:
  // From the text of a tokenizer_config.json: its `chat_template` (a string,
  // or a list of {"name", "template"}) and its named special tokens.
  // `name` picks one of several named templates (default: "default", or
  // "tool_use" when tools are passed and it exists).
  static absl::StatusOr<ChatTemplate> FromTokenizerConfig(absl::string_view json_text,
                                                          absl::string_view name = "");
  // From a template source and the variables it gets besides the messages
  // (a dict, usually the special tokens: {"bos_token": "<bos>", ...}).
  static absl::StatusOr<ChatTemplate> FromSource(absl::string_view source,
                                                 const Value& special_tokens = Value::Dict());
  // From a checkpoint folder: chat_template.jinja if present, else the
  // template in tokenizer_config.json; special tokens from tokenizer_config.json.
  // When the folder has no template, `default_source` (if not empty) is used
  // instead; NOT_FOUND otherwise. `default_special_tokens` (a dict) fills the
  // named special tokens tokenizer_config.json does not name.
  static absl::StatusOr<ChatTemplate> FromModelDir(
      const std::string& dir, absl::string_view default_source = "",
      const Value& default_special_tokens = Value::Dict());

  // Renders `messages` (a list of dicts). `tools` is None or a list of JSON
  // schemas; `extra` a dict of further template variables (enable_thinking,
  // reasoning_effort, ...), which override the special tokens.
  absl::StatusOr<std::string> Render(const Value& messages, const Value& tools = Value::None(),
                                     bool add_generation_prompt = true,
                                     const Value& extra = Value::Dict()) const;

  // The named special tokens passed to the template (bos_token, ...).
  const Value& special_tokens() const { return special_tokens_; }
  // Names of the templates held ("default" for a single one).
  std::vector<std::string> template_names() const;
  // Every held template's source, concatenated: what a host scans for a
  // family's markers (such as its tool-call syntax).
  const std::string& sources() const { return sources_; }

 private:
  ChatTemplate() = default;
  std::map<std::string, std::shared_ptr<JinjaTemplate>> templates_;
  std::string selected_;  // explicit choice, or empty
  std::string sources_;
  Value special_tokens_ = Value::Dict();
};

// transformers' message preprocessing: drops None-valued keys and aliases
// the reasoning fields. Returns a new list (the input is not modified).
absl::StatusOr<Value> NormalizeMessages(const Value& messages);

}  // namespace oxinfer::chat

#endif  // OXINFER_CORE_CHAT_CHAT_TEMPLATE_H_
