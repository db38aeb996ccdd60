// The safetensors header fuzz target, callable from ordinary tests too.
#ifndef OXINFER_FUZZ_SAFETENSORS_HEADER_FUZZER_H_
#define OXINFER_FUZZ_SAFETENSORS_HEADER_FUZZER_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"

namespace oxinfer {

// Parses one fuzz input (see the .cc for its two shapes) and traps when a
// header that parsed breaks the reader's invariants. Returns the parse status.
absl::Status ParseFuzzInput(const uint8_t* data, size_t size);

}  // namespace oxinfer

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

#endif  // OXINFER_FUZZ_SAFETENSORS_HEADER_FUZZER_H_
