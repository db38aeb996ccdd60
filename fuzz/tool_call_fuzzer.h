#ifndef OXINFER_FUZZ_TOOL_CALL_FUZZER_H_
#define OXINFER_FUZZ_TOOL_CALL_FUZZER_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"

namespace oxinfer {

// The first byte picks the format (Gemma 4, Qwen XML, Qwen JSON); the rest is
// a reply's text. OK when it holds at least one call.
absl::Status ParseToolCallsFuzzInput(const uint8_t* data, size_t size);

}  // namespace oxinfer

#endif  // OXINFER_FUZZ_TOOL_CALL_FUZZER_H_
