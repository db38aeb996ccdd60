// ggml's tensor types to float32, as llama.cpp's dequantize_row_* compute
// them (same operations in the same order, so the values are identical):
// F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0 and the K-quants Q2_K, Q3_K,
// Q4_K, Q5_K, Q6_K.
#ifndef OXINFER_CORE_GGUF_DEQUANTIZE_H_
#define OXINFER_CORE_GGUF_DEQUANTIZE_H_

#include <cstdint>

#include "absl/status/status.h"
#include "core/gguf/gguf_file.h"

namespace oxinfer::gguf {

// `n` elements (whole blocks) of `type` at `src` into `dst`.
absl::Status Dequantize(TensorType type, const void* src, int64_t n, float* dst);

}  // namespace oxinfer::gguf

#endif  // OXINFER_CORE_GGUF_DEQUANTIZE_H_
