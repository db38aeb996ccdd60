#ifndef OXINFER_FUZZ_CONVERSATION_FUZZER_H_
#define OXINFER_FUZZ_CONVERSATION_FUZZER_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"

namespace oxinfer {

// A --messages file (first byte even) or a --tools-file (odd), then its text.
absl::Status ParseConversationFuzzInput(const uint8_t* data, size_t size);

// An expression for the built-in calculator.
absl::Status CalculateFuzzInput(const uint8_t* data, size_t size);

}  // namespace oxinfer

#endif  // OXINFER_FUZZ_CONVERSATION_FUZZER_H_
