// libFuzzer entry point for chat templates (core/chat/jinja.h).
#include "fuzz/jinja_template_fuzzer.h"

#include <string>

#include "absl/strings/string_view.h"
#include "core/chat/jinja.h"
#include "core/chat/value.h"

namespace oxinfer {
namespace {

constexpr size_t kOutputBudget = size_t{1} << 20;

const chat::Value& Context() {
  static const chat::Value* context = [] {
    auto v = chat::Value::FromJson(R"({
      "messages": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hello \u00e9\u00df\u0130 <|im_end|>"},
        {"role": "assistant", "content": "Hi!", "reasoning_content": "greet"},
        {"role": "user", "content": [{"type": "text", "text": "And?"}]}
      ],
      "tools": [{"type": "function", "function": {"name": "f", "parameters": {"a": 1}}}],
      "bos_token": "<bos>", "eos_token": "<eos>", "add_generation_prompt": true,
      "enable_thinking": false
    })");
    return new chat::Value(v.ok() ? *v : chat::Value::Dict());
  }();
  return *context;
}

}  // namespace

absl::Status RenderTemplateFuzzInput(const uint8_t* data, size_t size) {
  chat::JinjaOptions options;
  options.budget.max_steps = 200000;
  options.budget.max_output_bytes = kOutputBudget;
  auto t = chat::JinjaTemplate::Parse(absl::string_view(reinterpret_cast<const char*>(data), size),
                                      options);
  if (!t.ok()) return t.status();
  auto out = t->Render(Context());
  if (!out.ok()) return out.status();
  if (out->size() > kOutputBudget) __builtin_trap();
  return absl::OkStatus();
}

}  // namespace oxinfer

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)oxinfer::RenderTemplateFuzzInput(data, size);
  return 0;
}
