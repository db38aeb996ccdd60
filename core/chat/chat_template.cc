#include "core/chat/chat_template.h"

#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

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
constexpr char kGemmaTemplate[] = R"JINJA(
{{- bos_token -}}
{%- set ns = namespace(prefix='') -%}
{%- for message in messages -%}
  {%- if loop.first and message['role'] == 'system' -%}
    {%- if message['content'] is string -%}
      {%- set ns.prefix = message['content'] + '\n\n' -%}
    {%- else -%}
      {%- set ns.prefix = message['content'][0]['text'] + '\n\n' -%}
    {%- endif -%}
  {%- else -%}
    {%- set role = 'model' if message['role'] == 'assistant' else message['role'] -%}
    {{- '<start_of_turn>' + role + '\n' + ns.prefix -}}
    {%- set ns.prefix = '' -%}
    {%- if message['content'] is string -%}
      {{- message['content'] | trim -}}
    {%- else -%}
      {%- for part in message['content'] -%}
        {%- if part['type'] == 'image' -%}{{- '<start_of_image>' -}}
        {%- elif part['type'] == 'text' -%}{{- part['text'] | trim -}}
        {%- endif -%}
      {%- endfor -%}
    {%- endif -%}
    {{- '<end_of_turn>\n' -}}
  {%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}{{- '<start_of_turn>model\n' -}}{%- endif -%}
)JINJA";

// Gemma 4 (as the E2B/E4B chat template of 2026-07-09): <|turn>role ... <turn|>,
// thinking switched on by <|think|> in the system turn, reasoning of the
// turns after the last user message replayed in a thought channel.
constexpr char kGemma4Template[] = R"JINJA(
{%- macro strip_thinking(text) -%}
  {%- set ns = namespace(out='') -%}
  {%- for part in text.split('<channel|>') -%}
    {%- set ns.out = ns.out + (part.split('<|channel>')[0] if '<|channel>' in part else part) -%}
  {%- endfor -%}
  {{- ns.out | trim -}}
{%- endmacro -%}
{%- set enable_thinking = enable_thinking | default(false) -%}
{%- set loop_messages = messages -%}
{%- set has_system = messages and messages[0]['role'] in ['system', 'developer'] -%}
{{- bos_token -}}
{%- if enable_thinking or has_system -%}
  {{- '<|turn>system\n' -}}
  {%- if enable_thinking -%}{{- '<|think|>\n' -}}{%- endif -%}
  {%- if has_system -%}
    {%- if messages[0]['content'] is string -%}
      {{- messages[0]['content'] | trim -}}
    {%- else -%}
      {%- for part in messages[0]['content'] -%}{{- part['text'] | trim + ' ' -}}{%- endfor -%}
    {%- endif -%}
    {%- set loop_messages = messages[1:] -%}
  {%- endif -%}
  {{- '<turn|>\n' -}}
{%- endif -%}
{%- set ns = namespace(last_user=-1, prev_role=none) -%}
{%- for message in loop_messages -%}
  {%- if message['role'] == 'user' -%}{%- set ns.last_user = loop.index0 -%}{%- endif -%}
{%- endfor -%}
{%- for message in loop_messages -%}
  {%- set role = 'model' if message['role'] == 'assistant' else message['role'] -%}
  {%- if not (role == 'model' and ns.prev_role == 'assistant') -%}
    {{- '<|turn>' + role + '\n' -}}
  {%- endif -%}
  {%- set thinking = message.get('reasoning') or message.get('reasoning_content') -%}
  {%- if thinking and loop.index0 > ns.last_user -%}
    {{- '<|channel>thought\n' + thinking + '\n<channel|>' -}}
  {%- endif -%}
  {%- if message.get('content') is string -%}
    {{- strip_thinking(message['content']) if role == 'model' else message['content'] | trim -}}
  {%- elif message.get('content') is sequence -%}
    {%- for part in message['content'] -%}
      {%- if part.get('type') == 'text' -%}
        {{- strip_thinking(part['text']) if role == 'model' else part['text'] | trim -}}
      {%- elif part.get('type') in ['image', 'image_url'] -%}{{- '<|image|>' -}}
      {%- elif part.get('type') in ['audio', 'input_audio'] -%}{{- '<|audio|>' -}}
      {%- elif part.get('type') == 'video' -%}{{- '<|video|>' -}}
      {%- endif -%}
    {%- endfor -%}
  {%- endif -%}
  {%- if not (role == 'model' and not loop.last and loop.nextitem['role'] == 'assistant') -%}
    {{- '<turn|>\n' -}}
  {%- endif -%}
  {%- set ns.prev_role = message['role'] -%}
{%- endfor -%}
{%- if add_generation_prompt -%}{{- '<|turn>model\n' -}}{%- endif -%}
)JINJA";

// Plain ChatML.
constexpr char kChatmlTemplate[] = R"JINJA(
{%- for message in messages -%}
  {%- set content = message['content'] if message['content'] is string else
      message['content'] | selectattr('type', 'equalto', 'text') | map(attribute='text') | join -%}
  {{- '<|im_start|>' + message['role'] + '\n' + content + '<|im_end|>\n' -}}
{%- endfor -%}
{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\n' -}}{%- endif -%}
)JINJA";

// Qwen 3.5 (as its chat_template.jinja): ChatML with <think> blocks on the
// turns after the last user message and in the generation prompt.
constexpr char kQwen35Template[] = R"JINJA(
{%- macro render_content(content) -%}
  {%- if content is string -%}{{- content -}}
  {%- elif content is iterable and content is not mapping -%}
    {%- for item in content -%}
      {%- if 'image' in item or 'image_url' in item or item.type == 'image' -%}
        {{- '<|vision_start|><|image_pad|><|vision_end|>' -}}
      {%- elif 'video' in item or item.type == 'video' -%}
        {{- '<|vision_start|><|video_pad|><|vision_end|>' -}}
      {%- elif 'text' in item -%}{{- item.text -}}
      {%- endif -%}
    {%- endfor -%}
  {%- endif -%}
{%- endmacro -%}
{%- set ns = namespace(last_query=messages | length - 1) -%}
{%- for message in messages -%}
  {%- if message.role == 'user' -%}{%- set ns.last_query = loop.index0 -%}{%- endif -%}
{%- endfor -%}
{%- for message in messages -%}
  {%- set content = render_content(message.content) | trim -%}
  {%- if message.role == 'assistant' -%}
    {%- if message.reasoning_content is string -%}
      {%- set reasoning = message.reasoning_content -%}
    {%- elif '</think>' in content -%}
      {%- set reasoning = content.split('</think>')[0].rstrip('\n').split('<think>')[-1].lstrip('\n') -%}
      {%- set content = content.split('</think>')[-1].lstrip('\n') -%}
    {%- else -%}
      {%- set reasoning = '' -%}
    {%- endif -%}
    {%- if loop.index0 > ns.last_query -%}
      {{- '<|im_start|>assistant\n<think>\n' + (reasoning | trim) + '\n</think>\n\n' + content -}}
    {%- else -%}
      {{- '<|im_start|>assistant\n' + content -}}
    {%- endif -%}
    {{- '<|im_end|>\n' -}}
  {%- else -%}
    {{- '<|im_start|>' + message.role + '\n' + content + '<|im_end|>\n' -}}
  {%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}
  {{- '<|im_start|>assistant\n' -}}
  {{- '<think>\n\n</think>\n\n' if enable_thinking is defined and enable_thinking is false
      else '<think>\n' -}}
{%- endif -%}
)JINJA";

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
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

absl::StatusOr<ChatTemplate> ChatTemplate::FromModelDir(const std::string& dir) {
  auto config_text = ReadFile(dir + "/tokenizer_config.json");
  Value special = Value::Dict();
  if (config_text.ok()) {
    auto config = Value::FromJson(*config_text);
    if (!config.ok()) {
      return absl::Status(config.status().code(),
                          absl::StrCat(dir, "/tokenizer_config.json: ", config.status().message()));
    }
    special = SpecialTokensFromConfig(*config);
  }
  auto jinja = ReadFile(dir + "/chat_template.jinja");
  if (jinja.ok()) return FromSource(*jinja, special);
  if (!config_text.ok()) {
    return absl::NotFoundError(
        absl::StrCat(dir, " has neither chat_template.jinja nor tokenizer_config.json"));
  }
  return FromTokenizerConfig(*config_text);
}

ChatTemplate ChatTemplate::Builtin(BuiltinFormat format) {
  Value tokens = Value::Dict();
  const char* source = nullptr;
  switch (format) {
    case BuiltinFormat::kGemma:
      tokens.object().Set("bos_token", Value("<bos>"));
      tokens.object().Set("eos_token", Value("<eos>"));
      source = kGemmaTemplate;
      break;
    case BuiltinFormat::kGemma4:
      tokens.object().Set("bos_token", Value("<bos>"));
      tokens.object().Set("eos_token", Value("<eos>"));
      source = kGemma4Template;
      break;
    case BuiltinFormat::kChatml:
      tokens.object().Set("eos_token", Value("<|im_end|>"));
      source = kChatmlTemplate;
      break;
    case BuiltinFormat::kQwen35:
      tokens.object().Set("eos_token", Value("<|im_end|>"));
      tokens.object().Set("pad_token", Value("<|endoftext|>"));
      source = kQwen35Template;
      break;
  }
  auto t = FromSource(source, tokens);
  // The built-in sources are fixed and covered by tests.
  return std::move(*t);
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
