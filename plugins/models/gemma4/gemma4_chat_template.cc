#include "plugins/models/gemma4/gemma4_chat_template.h"

namespace oxinfer {
namespace gemma4 {

const char kGemma4ChatTemplate[] = R"JINJA(
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

}  // namespace gemma4
}  // namespace oxinfer
