// The --save-quantized metadata fuzz target (core/quantized_format.h),
// callable from ordinary tests too.
#ifndef OXINFER_FUZZ_QUANTIZED_METADATA_FUZZER_H_
#define OXINFER_FUZZ_QUANTIZED_METADATA_FUZZER_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"

namespace oxinfer {

// The input is a shard's __metadata__ as JSON (an object of strings; other
// values refused as the safetensors reader refuses them), checked by
// ParseQuantizedMetadata. Metadata that parses must give layouts that fit
// their shapes (byte_size() > 0, the _x8 rows whole groups); a violation
// traps. Returns the parse status.
absl::Status ParseQuantizedMetadataFuzzInput(const uint8_t* data, size_t size);

}  // namespace oxinfer

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

#endif  // OXINFER_FUZZ_QUANTIZED_METADATA_FUZZER_H_
