// The fuzz target for GGUF headers (core/gguf/gguf_file.h), callable from
// ordinary tests too.
#ifndef OXINFER_FUZZ_GGUF_HEADER_FUZZER_H_
#define OXINFER_FUZZ_GGUF_HEADER_FUZZER_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"

namespace oxinfer {

// Parses one file; traps when an accepted one has a tensor outside the data,
// a size that disagrees with its type and shape, or a bad alignment; and
// dequantises the first block of every tensor (must not read out of bounds).
absl::Status ParseGgufFuzzInput(const uint8_t* data, size_t size);

}  // namespace oxinfer

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

#endif  // OXINFER_FUZZ_GGUF_HEADER_FUZZER_H_
