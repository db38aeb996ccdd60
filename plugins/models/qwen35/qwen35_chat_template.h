// The chat template the plugin reports for checkpoints that carry none:
// plain ChatML, which every Qwen 3.5 checkpoint's own template extends.
#ifndef OXINFER_PLUGINS_MODELS_QWEN35_QWEN35_CHAT_TEMPLATE_H_
#define OXINFER_PLUGINS_MODELS_QWEN35_QWEN35_CHAT_TEMPLATE_H_

namespace oxinfer {
namespace qwen35 {

inline constexpr char kChatmlTemplate[] = R"JINJA(
{%- for message in messages -%}
  {%- set content = message['content'] if message['content'] is string else
      message['content'] | selectattr('type', 'equalto', 'text') | map(attribute='text') | join -%}
  {{- '<|im_start|>' + message['role'] + '\n' + content + '<|im_end|>\n' -}}
{%- endfor -%}
{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\n' -}}{%- endif -%}
)JINJA";

}  // namespace qwen35
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_QWEN35_QWEN35_CHAT_TEMPLATE_H_
