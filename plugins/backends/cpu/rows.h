// Rows of every storage type to and from f32: the element conversions, the
// GGUF-exact quantisers, dequantisation, and the _X8 interleaving. Used by
// convert, copy, get_rows / set_rows and the matmul kernels.
#ifndef OXINFER_PLUGINS_BACKENDS_CPU_ROWS_H_
#define OXINFER_PLUGINS_BACKENDS_CPU_ROWS_H_

#include <cstdint>

#include "oxinfer/dtype.h"

#ifndef OXI_CPU_NS
#error "OXI_CPU_NS must name the variant (scalar, avx2, avx512, neon)"
#endif

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {

inline bool IsFloatType(oxi_dtype t) {
  return t == OXI_DTYPE_F32 || t == OXI_DTYPE_BF16 || t == OXI_DTYPE_F16;
}
// Plain block types (Q8_0, Q4_0), and any block type including the
// row-interleaved _X8 forms.
inline bool IsQuantType(oxi_dtype t) { return t == OXI_DTYPE_Q8_0 || t == OXI_DTYPE_Q4_0; }
inline bool IsBlockType(oxi_dtype t) { return IsQuantType(oxi_dtype_plain(t)); }
inline bool IsX8(oxi_dtype t) { return oxi_dtype_is_x8(t) != 0; }
// What matmul and get_rows read.
inline bool IsWeightType(oxi_dtype t) { return IsFloatType(t) || IsBlockType(t); }

void Bf16ToF32(const uint16_t* src, int64_t n, float* dst);
void F16ToF32(const uint16_t* src, int64_t n, float* dst);
void F32ToBf16(const float* src, int64_t n, uint16_t* dst);
void F32ToF16(const float* src, int64_t n, uint16_t* dst);

// GGUF's quantize_row_q8_0_ref for one block: returns d as stored (f16).
uint16_t QuantizeBlockQ8(const float* x, int8_t* q);
// GGUF's quantize_row_q4_0_ref for one block.
void QuantizeBlockQ4(const float* x, oxi_block_q4_0* out);

// Elements [k0, k0 + kc) of a row of plain type t as f32; for the block
// types k0 and kc are multiples of OXI_QK.
void RowToF32(const uint8_t* row, oxi_dtype t, int64_t k0, int64_t kc, float* out);
// k elements into a row of plain type t (quantised for the block types).
void RowFromF32(const float* x, int64_t k, oxi_dtype t, uint8_t* out);

// Elements [k0, k0 + kc) of row j of a weight matrix [.][k] of type t as f32.
// Plain types: rows `row_bytes` apart; the _X8 forms (packed) gather the
// row's blocks from its group.
void WeightRowToF32(const uint8_t* w, oxi_dtype t, int64_t k, int64_t row_bytes, int64_t j,
                    int64_t k0, int64_t kc, float* out);

// Eight plain rows of block type p (row_bytes apart) <-> one _X8 group.
void InterleaveX8(const uint8_t* rows, int64_t row_bytes, oxi_dtype p, int64_t k, uint8_t* group);
void DeinterleaveX8(const uint8_t* group, oxi_dtype p, int64_t k, uint8_t* rows, int64_t row_bytes);

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_BACKENDS_CPU_ROWS_H_
