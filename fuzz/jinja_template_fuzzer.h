// The chat-template fuzz target: the Jinja lexer, parser and renderer (with
// the execution budget on), callable from ordinary tests too.
#ifndef OXINFER_FUZZ_JINJA_TEMPLATE_FUZZER_H_
#define OXINFER_FUZZ_JINJA_TEMPLATE_FUZZER_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"

namespace oxinfer {

// Parses the input as a template and renders it over a small conversation
// (messages, tools, special tokens, add_generation_prompt) under a budget of
// 200,000 steps and 1 MiB; traps when the output breaks the budget. Returns
// the parse or render status.
absl::Status RenderTemplateFuzzInput(const uint8_t* data, size_t size);

}  // namespace oxinfer

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

#endif  // OXINFER_FUZZ_JINJA_TEMPLATE_FUZZER_H_
