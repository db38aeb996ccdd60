// float32 into ggml's Q8_0 blocks (an f16 scale and 32 int8 quants), as
// quantize_row_q8_0_ref computes them: the GGUF reader holds the matrices it
// must dequantise (K-quants, Q4_1, Q5_*) this way rather than as float32.
#ifndef OXINFER_CORE_GGUF_QUANTIZE_Q8_0_H_
#define OXINFER_CORE_GGUF_QUANTIZE_Q8_0_H_

#include <cstdint>

namespace oxinfer::gguf {

inline constexpr int64_t kQ8_0BlockElems = 32;
inline constexpr int64_t kQ8_0BlockBytes = 34;

// `n` floats (a multiple of 32) into n / 32 blocks at `out`.
void QuantizeQ8_0(const float* x, int64_t n, uint8_t* out);

}  // namespace oxinfer::gguf

#endif  // OXINFER_CORE_GGUF_QUANTIZE_Q8_0_H_
