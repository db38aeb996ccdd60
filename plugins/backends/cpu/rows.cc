// Rows of every storage type to and from f32, and the _X8 interleaving.
#include "plugins/backends/cpu/rows.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "oxinfer/dtype.h"
#include "plugins/backends/cpu/simd.h"

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {

void Bf16ToF32(const uint16_t* src, int64_t n, float* dst) {
  int64_t i = 0;
#if OXI_KERNELS_X86
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(dst + i, LoadBf16x8(src + i));
#endif
  for (; i < n; ++i) dst[i] = oxi_bf16_to_f32(src[i]);
}

void F16ToF32(const uint16_t* src, int64_t n, float* dst) {
  int64_t i = 0;
#if OXI_KERNELS_X86
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(dst + i, LoadF16x8(src + i));
#endif
  for (; i < n; ++i) dst[i] = oxi_f16_to_f32(src[i]);
}

void F32ToBf16(const float* src, int64_t n, uint16_t* dst) {
  int64_t i = 0;
#if OXI_KERNELS_X86
  const __m256i abs_mask = _mm256_set1_epi32(0x7fffffff);
  const __m256i inf = _mm256_set1_epi32(0x7f800000);
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i bias = _mm256_set1_epi32(0x7fff);
  const __m256i quiet = _mm256_set1_epi32(0x40);
  for (; i + 8 <= n; i += 8) {
    const __m256i u = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
    const __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, abs_mask), inf);
    const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), one);
    const __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(u, _mm256_add_epi32(bias, lsb)), 16);
    const __m256i nanv = _mm256_or_si256(_mm256_srli_epi32(u, 16), quiet);
    const __m256i r = _mm256_blendv_epi8(rounded, nanv, nan);
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(r, r), 0x08);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm256_castsi256_si128(packed));
  }
#endif
  for (; i < n; ++i) dst[i] = oxi_f32_to_bf16(src[i]);
}

void F32ToF16(const float* src, int64_t n, uint16_t* dst) {
  int64_t i = 0;
#if OXI_KERNELS_X86
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(src + i);
    if (_mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q)) != 0) {
      // The reference's NaN encoding differs from the hardware's.
      for (int j = 0; j < 8; ++j) dst[i + j] = oxi_f32_to_f16(src[i + j]);
      continue;
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i),
                     _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
#endif
  for (; i < n; ++i) dst[i] = oxi_f32_to_f16(src[i]);
}
namespace {

#if OXI_KERNELS_X86
// One block's 32 int8 quants (lo: 0..15, hi: 16..31) times d, as f32.
inline void DequantQ8Regs(__m128i lo, __m128i hi, float d, float* o) {
  const __m256 dv = _mm256_set1_ps(d);
  const __m128i parts[4] = {lo, _mm_srli_si128(lo, 8), hi, _mm_srli_si128(hi, 8)};
  for (int j = 0; j < 4; ++j) {
    _mm256_storeu_ps(o + 8 * j,
                     _mm256_mul_ps(dv, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(parts[j]))));
  }
}
// One block's 16 Q4_0 quant bytes times d, as f32 (x = d * (nibble - 8)).
inline void DequantQ4Regs(__m128i raw, float d, float* o) {
  const __m128i m4 = _mm_set1_epi8(0x0f);
  const __m128i eight = _mm_set1_epi8(8);
  const __m128i lo = _mm_sub_epi8(_mm_and_si128(raw, m4), eight);
  const __m128i hi = _mm_sub_epi8(_mm_and_si128(_mm_srli_epi16(raw, 4), m4), eight);
  DequantQ8Regs(lo, hi, d, o);
}
#endif

void DequantQ8(const oxi_block_q8_0* b, int64_t nb, float* out) {
  for (int64_t i = 0; i < nb; ++i) {
    const float d = oxi_f16_to_f32(b[i].d);
    float* o = out + i * OXI_QK;
#if OXI_KERNELS_X86
    DequantQ8Regs(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b[i].qs)),
                  _mm_loadu_si128(reinterpret_cast<const __m128i*>(b[i].qs + 16)), d, o);
#else
    for (int j = 0; j < OXI_QK; ++j) o[j] = d * static_cast<float>(b[i].qs[j]);
#endif
  }
}

void DequantQ4(const oxi_block_q4_0* b, int64_t nb, float* out) {
  for (int64_t i = 0; i < nb; ++i) {
    const float d = oxi_f16_to_f32(b[i].d);
    float* o = out + i * OXI_QK;
#if OXI_KERNELS_X86
    DequantQ4Regs(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b[i].qs)), d, o);
#else
    for (int j = 0; j < OXI_QK / 2; ++j) {
      o[j] = d * static_cast<float>((b[i].qs[j] & 0x0f) - 8);
      o[j + OXI_QK / 2] = d * static_cast<float>((b[i].qs[j] >> 4) - 8);
    }
#endif
  }
}

}  // namespace

void RowToF32(const uint8_t* row, oxi_dtype t, int64_t k0, int64_t kc, float* out) {
  switch (t) {
    case OXI_DTYPE_F32:
      std::memcpy(out, reinterpret_cast<const float*>(row) + k0, kc * sizeof(float));
      break;
    case OXI_DTYPE_BF16:
      Bf16ToF32(reinterpret_cast<const uint16_t*>(row) + k0, kc, out);
      break;
    case OXI_DTYPE_F16:
      F16ToF32(reinterpret_cast<const uint16_t*>(row) + k0, kc, out);
      break;
    case OXI_DTYPE_Q8_0:
      DequantQ8(reinterpret_cast<const oxi_block_q8_0*>(row) + k0 / OXI_QK, kc / OXI_QK, out);
      break;
    case OXI_DTYPE_Q4_0:
      DequantQ4(reinterpret_cast<const oxi_block_q4_0*>(row) + k0 / OXI_QK, kc / OXI_QK, out);
      break;
    default:
      break;
  }
}

void RowFromF32(const float* x, int64_t k, oxi_dtype t, uint8_t* out) {
  switch (t) {
    case OXI_DTYPE_F32:
      std::memcpy(out, x, k * sizeof(float));
      break;
    case OXI_DTYPE_BF16:
      F32ToBf16(x, k, reinterpret_cast<uint16_t*>(out));
      break;
    case OXI_DTYPE_F16:
      F32ToF16(x, k, reinterpret_cast<uint16_t*>(out));
      break;
    case OXI_DTYPE_Q8_0: {
      auto* b = reinterpret_cast<oxi_block_q8_0*>(out);
      for (int64_t i = 0; i < k / OXI_QK; ++i) b[i].d = QuantizeBlockQ8(x + i * OXI_QK, b[i].qs);
      break;
    }
    case OXI_DTYPE_Q4_0: {
      auto* b = reinterpret_cast<oxi_block_q4_0*>(out);
      for (int64_t i = 0; i < k / OXI_QK; ++i) QuantizeBlockQ4(x + i * OXI_QK, &b[i]);
      break;
    }
    default:
      break;
  }
}

void WeightRowToF32(const uint8_t* w, oxi_dtype t, int64_t k, int64_t row_bytes, int64_t j,
                    int64_t k0, int64_t kc, float* out) {
  if (!IsX8(t)) {
    RowToF32(w + j * row_bytes, t, k0, kc, out);
    return;
  }
  const oxi_dtype p = oxi_dtype_plain(t);
#if OXI_KERNELS_X86
  // Straight from the super-blocks (prefill packs every weight row this way).
  const int64_t bb = oxi_dtype_block_bytes(p);
  const int r = static_cast<int>(j % OXI_X8_ROWS);
  const uint8_t* group = w + (j / OXI_X8_ROWS) * OXI_X8_ROWS * oxi_dtype_row_bytes(p, k);
  for (int64_t b = k0 / OXI_QK; b < (k0 + kc) / OXI_QK; ++b) {
    const uint8_t* sb = group + b * OXI_X8_ROWS * bb;
    uint16_t h;
    std::memcpy(&h, sb + 2 * r, 2);
    const float d = oxi_f16_to_f32(h);
    const uint8_t* q = sb + 16 + 4 * r;
    float* o = out + b * OXI_QK - k0;
    const __m128i lo = _mm_setr_epi32(Load4(q), Load4(q + 32), Load4(q + 64), Load4(q + 96));
    if (p == OXI_DTYPE_Q4_0) {
      DequantQ4Regs(lo, d, o);
    } else {
      const __m128i hi =
          _mm_setr_epi32(Load4(q + 128), Load4(q + 160), Load4(q + 192), Load4(q + 224));
      DequantQ8Regs(lo, hi, d, o);
    }
  }
#else
  alignas(8) uint8_t blk[sizeof(oxi_block_q8_0)];
  for (int64_t b = k0 / OXI_QK; b < (k0 + kc) / OXI_QK; ++b) {
    oxi_dtype_x8_block(w, t, k, j, b, blk);
    RowToF32(blk, p, 0, OXI_QK, out + b * OXI_QK - k0);
  }
#endif
}

// Layout: dtype.h.
void InterleaveX8(const uint8_t* rows, int64_t rb, oxi_dtype p, int64_t k, uint8_t* group) {
  const int64_t bb = oxi_dtype_block_bytes(p);
  const int64_t words = (bb - 2) / 4;
  for (int64_t b = 0; b < k / OXI_QK; ++b) {
    uint8_t* sb = group + b * OXI_X8_ROWS * bb;
    for (int r = 0; r < OXI_X8_ROWS; ++r) {
      const uint8_t* blk = rows + r * rb + b * bb;
      std::memcpy(sb + 2 * r, blk, 2);
      for (int64_t t = 0; t < words; ++t) std::memcpy(sb + 16 + 32 * t + 4 * r, blk + 2 + 4 * t, 4);
    }
  }
}
void DeinterleaveX8(const uint8_t* group, oxi_dtype p, int64_t k, uint8_t* rows, int64_t rb) {
  const int64_t bb = oxi_dtype_block_bytes(p);
  const int64_t words = (bb - 2) / 4;
  for (int64_t b = 0; b < k / OXI_QK; ++b) {
    const uint8_t* sb = group + b * OXI_X8_ROWS * bb;
    for (int r = 0; r < OXI_X8_ROWS; ++r) {
      uint8_t* blk = rows + r * rb + b * bb;
      std::memcpy(blk, sb + 2 * r, 2);
      for (int64_t t = 0; t < words; ++t) std::memcpy(blk + 2 + 4 * t, sb + 16 + 32 * t + 4 * r, 4);
    }
  }
}

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer
