// CPU backend kernels. This one source is compiled once per ISA variant (see
// BUILD): the portable code below is the reference and the whole scalar
// variant; blocks under OXI_KERNELS_X86 are the AVX2+FMA+F16C fast paths (also
// used, recompiled for wider registers, by the AVX-512 build).
//
// Nothing here may run before the plugin's score() accepted the CPU, so there
// are no namespace-scope objects with dynamic initialisers, and this file does
// not include plugin.hpp: its inline functions, compiled here with -march
// flags, could otherwise be the copy the linker keeps for the entry object.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "oxinfer/dtype.h"
#include "oxinfer/plugin_abi.h"
#include "plugins/backends/cpu/cpu_backend.h"

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#define OXI_KERNELS_X86 1
#include <immintrin.h>
#endif

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {
namespace {

const oxi_host_services* g_host = nullptr;

// Runs fn(begin, end) over [0, n) on the host's pool.
template <typename Fn>
void Parallel(int64_t n, int64_t grain, Fn&& fn) {
  if (n <= 0) return;
  if (g_host == nullptr || g_host->parallel_for == nullptr) {
    fn(int64_t{0}, n);
    return;
  }
  using FnT = std::remove_reference_t<Fn>;
  g_host->parallel_for(
      n, grain,
      [](void* ctx, int64_t begin, int64_t end, int32_t) { (*static_cast<FnT*>(ctx))(begin, end); },
      const_cast<void*>(static_cast<const void*>(&fn)));
}

// Per-thread scratch memory, reused across calls (no allocation per token).
enum ScratchSlot { kScratchWeights = 0, kScratchAct = 1, kScratchActF32 = 2, kScratchScores = 3 };

void* Scratch(int slot, size_t bytes) {
  thread_local std::vector<uint64_t> buffers[4];
  std::vector<uint64_t>& b = buffers[slot];
  const size_t words = (bytes + 64) / 8 + 8;
  if (b.size() < words) b.resize(words);
  // 64-byte aligned start.
  uintptr_t p = reinterpret_cast<uintptr_t>(b.data());
  p = (p + 63) & ~uintptr_t{63};
  return reinterpret_cast<void*>(p);
}

inline bool IsFloatType(oxi_dtype t) {
  return t == OXI_DTYPE_F32 || t == OXI_DTYPE_BF16 || t == OXI_DTYPE_F16;
}
// Plain block types (Q8_0, Q4_0), and any block type including the
// row-interleaved _X8 forms.
inline bool IsQuantType(oxi_dtype t) { return t == OXI_DTYPE_Q8_0 || t == OXI_DTYPE_Q4_0; }
inline bool IsBlockType(oxi_dtype t) { return IsQuantType(oxi_dtype_plain(t)); }
inline bool IsX8(oxi_dtype t) { return oxi_dtype_is_x8(t) != 0; }

// ===================== element conversions =====================

#if OXI_KERNELS_X86
inline __m256 LoadBf16x8(const uint16_t* p) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(v), 16));
}
inline __m256 LoadF16x8(const uint16_t* p) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
inline float Hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}
inline float Hmax(__m256 v) {
  __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_max_ps(s, _mm_movehl_ps(s, s));
  s = _mm_max_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}
// Mask of the first `rem` (0..8) lanes, for tails.
inline __m256i TailMask(int64_t rem) {
  const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(rem)), idx);
}
#endif

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

// GGUF's quantize_row_q8_0_ref for one block: d = amax/127, q = roundf(x/d).
// Returns d as stored (f16) and writes q.
uint16_t QuantizeBlockQ8(const float* x, int8_t* q) {
#if OXI_KERNELS_X86
  const __m256 sign = _mm256_set1_ps(-0.0f);
  __m256 v[4];
  __m256 amax = _mm256_setzero_ps();
  for (int j = 0; j < 4; ++j) {
    v[j] = _mm256_loadu_ps(x + 8 * j);
    amax = _mm256_max_ps(amax, _mm256_andnot_ps(sign, v[j]));
  }
  const float d = Hmax(amax) / 127.0f;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  const __m256 idv = _mm256_set1_ps(id);
  const __m256 half = _mm256_set1_ps(0.5f);
  const __m256 one = _mm256_set1_ps(1.0f);
  __m256i iv[4];
  for (int j = 0; j < 4; ++j) {
    // roundf (half away from zero), exactly: truncate, then step by the
    // exact fractional part.
    const __m256 s = _mm256_mul_ps(v[j], idv);
    const __m256 t = _mm256_round_ps(s, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __m256 frac = _mm256_andnot_ps(sign, _mm256_sub_ps(s, t));
    const __m256 step = _mm256_and_ps(_mm256_cmp_ps(frac, half, _CMP_GE_OQ),
                                      _mm256_or_ps(one, _mm256_and_ps(sign, s)));
    iv[j] = _mm256_cvtps_epi32(_mm256_add_ps(t, step));
  }
  __m256i a = _mm256_packs_epi32(iv[0], iv[1]);
  __m256i b = _mm256_packs_epi32(iv[2], iv[3]);
  a = _mm256_packs_epi16(a, b);
  a = _mm256_permutevar8x32_epi32(a, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(q), a);
  return oxi_f32_to_f16(d);
#else
  float amax = 0.0f;
  for (int j = 0; j < OXI_QK; ++j) amax = std::max(amax, std::fabs(x[j]));
  const float d = amax / 127.0f;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  for (int j = 0; j < OXI_QK; ++j) q[j] = static_cast<int8_t>(std::roundf(x[j] * id));
  return oxi_f32_to_f16(d);
#endif
}

// GGUF's quantize_row_q4_0_ref for one block: d = max/-8 (max: the signed
// value of largest magnitude, first on ties), q = min(15, (int8)(x/d + 8.5)).
void QuantizeBlockQ4(const float* x, oxi_block_q4_0* out) {
#if OXI_KERNELS_X86
  // The same operations as the portable code below, eight lanes at a time
  // (load time at q4 is mostly this); bit-exact, as the tests check.
  const __m256 sign = _mm256_set1_ps(-0.0f);
  __m256 v[4];
  __m256 amaxv = _mm256_setzero_ps();
  for (int j = 0; j < 4; ++j) {
    v[j] = _mm256_loadu_ps(x + 8 * j);
    amaxv = _mm256_max_ps(amaxv, _mm256_andnot_ps(sign, v[j]));
  }
  const float amax = Hmax(amaxv);
  float vmax = 0.0f;  // the first element of that magnitude, signed
  if (amax > 0.0f) {
    const __m256 am = _mm256_set1_ps(amax);
    for (int j = 0; j < 4; ++j) {
      const int mask =
          _mm256_movemask_ps(_mm256_cmp_ps(_mm256_andnot_ps(sign, v[j]), am, _CMP_EQ_OQ));
      if (mask != 0) {
        vmax = x[8 * j + __builtin_ctz(static_cast<unsigned>(mask))];
        break;
      }
    }
  }
  const float dq = vmax / -8.0f;
  const __m256 idv = _mm256_set1_ps(dq != 0.0f ? 1.0f / dq : 0.0f);
  const __m256 bias = _mm256_set1_ps(8.5f);
  const __m256i fifteen = _mm256_set1_epi32(15);
  __m256i iv[4];
  for (int j = 0; j < 4; ++j) {
    iv[j] = _mm256_min_epi32(_mm256_cvttps_epi32(_mm256_add_ps(_mm256_mul_ps(v[j], idv), bias)),
                             fifteen);
  }
  __m256i a = _mm256_packs_epi32(iv[0], iv[1]);
  a = _mm256_packs_epi16(a, _mm256_packs_epi32(iv[2], iv[3]));
  a = _mm256_permutevar8x32_epi32(a, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
  const __m128i packed =
      _mm_or_si128(_mm256_castsi256_si128(a), _mm_slli_epi16(_mm256_extracti128_si256(a, 1), 4));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out->qs), packed);
  out->d = oxi_f32_to_f16(dq);
#else
  float amax = 0.0f, max = 0.0f;
  for (int j = 0; j < OXI_QK; ++j) {
    const float v = x[j];
    if (amax < std::fabs(v)) {
      amax = std::fabs(v);
      max = v;
    }
  }
  const float d = max / -8.0f;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  out->d = oxi_f32_to_f16(d);
  for (int j = 0; j < OXI_QK / 2; ++j) {
    const float x0 = x[j] * id;
    const float x1 = x[OXI_QK / 2 + j] * id;
    const int q0 = std::min(15, static_cast<int>(static_cast<int8_t>(x0 + 8.5f)));
    const int q1 = std::min(15, static_cast<int>(static_cast<int8_t>(x1 + 8.5f)));
    out->qs[j] = static_cast<uint8_t>(q0 | (q1 << 4));
  }
#endif
}

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
inline int32_t Load4(const uint8_t* p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return v;
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

// Elements [k0, k0 + kc) of a row as f32; for the block types k0 and kc are
// multiples of OXI_QK.
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

// Elements [k0, k0 + kc) of row j of a weight matrix [.][k] of type t as f32
// (the _X8 forms gather the row's blocks from its group).
void WeightRowToF32(const uint8_t* w, oxi_dtype t, int64_t k, int64_t j, int64_t k0, int64_t kc,
                    float* out) {
  if (!IsX8(t)) {
    RowToF32(w + j * oxi_dtype_row_bytes(t, k), t, k0, kc, out);
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

// Eight plain rows of block type p <-> one _X8 group (layout: dtype.h).
void InterleaveX8(const uint8_t* rows, oxi_dtype p, int64_t k, uint8_t* group) {
  const int64_t bb = oxi_dtype_block_bytes(p), rb = oxi_dtype_row_bytes(p, k);
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
void DeinterleaveX8(const uint8_t* group, oxi_dtype p, int64_t k, uint8_t* rows) {
  const int64_t bb = oxi_dtype_block_bytes(p), rb = oxi_dtype_row_bytes(p, k);
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

// ===================== fast math =====================

#if OXI_KERNELS_X86
// exp(x), about 1 ulp (Cephes' expf); 0 below -87.3, inf above 88.7.
inline __m256 Exp8(__m256 x) {
  const __m256 hi = _mm256_set1_ps(88.3762626647949f);
  const __m256 lo = _mm256_set1_ps(-87.3365447504f);
  const __m256 under = _mm256_cmp_ps(x, lo, _CMP_LT_OQ);
  const __m256 over = _mm256_cmp_ps(x, hi, _CMP_GT_OQ);
  x = _mm256_min_ps(_mm256_max_ps(x, lo), hi);
  const __m256 fx = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  x = _mm256_fnmadd_ps(fx, _mm256_set1_ps(0.693359375f), x);
  x = _mm256_fnmadd_ps(fx, _mm256_set1_ps(-2.12194440e-4f), x);
  __m256 y = _mm256_set1_ps(1.9875691500E-4f);
  y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(1.3981999507E-3f));
  y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(8.3334519073E-3f));
  y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(4.1665795894E-2f));
  y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(1.6666665459E-1f));
  y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(5.0000001201E-1f));
  y = _mm256_fmadd_ps(y, _mm256_mul_ps(x, x), _mm256_add_ps(x, _mm256_set1_ps(1.0f)));
  // 2^fx in two steps so that fx = 128 (x near the top) does not overflow.
  const __m256i e = _mm256_cvtps_epi32(fx);
  const __m256i e1 = _mm256_srai_epi32(e, 1);
  const __m256i e2 = _mm256_sub_epi32(e, e1);
  const __m256i bias = _mm256_set1_epi32(127);
  y = _mm256_mul_ps(y, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(e1, bias), 23)));
  y = _mm256_mul_ps(y, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(e2, bias), 23)));
  y = _mm256_andnot_ps(under, y);
  return _mm256_blendv_ps(y, _mm256_set1_ps(std::numeric_limits<float>::infinity()), over);
}

inline __m256 Tanh8(__m256 x) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  const __m256 ax = _mm256_andnot_ps(sign, x);
  // Large |x|: 1 - 2/(exp(2|x|)+1), sign restored.
  const __m256 e = Exp8(_mm256_add_ps(ax, ax));
  const __m256 big =
      _mm256_sub_ps(_mm256_set1_ps(1.0f),
                    _mm256_div_ps(_mm256_set1_ps(2.0f), _mm256_add_ps(e, _mm256_set1_ps(1.0f))));
  // Small |x|: odd Taylor series, avoiding the cancellation above.
  const __m256 x2 = _mm256_mul_ps(x, x);
  __m256 p = _mm256_set1_ps(62.0f / 2835.0f);
  p = _mm256_fmadd_ps(p, x2, _mm256_set1_ps(-17.0f / 315.0f));
  p = _mm256_fmadd_ps(p, x2, _mm256_set1_ps(2.0f / 15.0f));
  p = _mm256_fmadd_ps(p, x2, _mm256_set1_ps(-1.0f / 3.0f));
  const __m256 small = _mm256_fmadd_ps(_mm256_mul_ps(p, x2), x, x);
  const __m256 large = _mm256_or_ps(big, _mm256_and_ps(sign, x));
  return _mm256_blendv_ps(large, small, _mm256_cmp_ps(ax, _mm256_set1_ps(0.4f), _CMP_LT_OQ));
}

// erf(x), Abramowitz-Stegun 7.1.26 refined: |error| < 1.5e-7.
inline __m256 Erf8(__m256 x) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  const __m256 ax = _mm256_andnot_ps(sign, x);
  const __m256 t = _mm256_div_ps(
      _mm256_set1_ps(1.0f), _mm256_fmadd_ps(_mm256_set1_ps(0.3275911f), ax, _mm256_set1_ps(1.0f)));
  __m256 p = _mm256_set1_ps(1.061405429f);
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(-1.453152027f));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(1.421413741f));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(-0.284496736f));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(0.254829592f));
  p = _mm256_mul_ps(p, t);
  const __m256 e = Exp8(_mm256_sub_ps(_mm256_setzero_ps(), _mm256_mul_ps(ax, ax)));
  const __m256 y = _mm256_fnmadd_ps(p, e, _mm256_set1_ps(1.0f));
  return _mm256_or_ps(y, _mm256_and_ps(sign, x));
}
#endif

void ExpInPlace(float* x, int64_t n) {
  int64_t i = 0;
#if OXI_KERNELS_X86
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(x + i, Exp8(_mm256_loadu_ps(x + i)));
#endif
  for (; i < n; ++i) x[i] = std::exp(x[i]);
}

float Dot(const float* a, const float* b, int64_t n) {
  int64_t i = 0;
  float s = 0.0f;
#if OXI_KERNELS_X86
  __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
  for (; i + 16 <= n; i += 16) {
    acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), acc0);
    acc1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), acc1);
  }
  for (; i + 8 <= n; i += 8) {
    acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), acc0);
  }
  s = Hsum(_mm256_add_ps(acc0, acc1));
#endif
  for (; i < n; ++i) s += a[i] * b[i];
  return s;
}

// ===================== matmul =====================

// Activations quantised to Q8_0 (for Q8_0/Q4_0 weights), in the layouts the
// kernels read: natural int8, |q| and a block-pair interleaved copy (x86).
struct QuantAct {
  int64_t m = 0, k = 0, nb = 0;
  int64_t nbp = 0;           // row stride of d and nsum: nb rounded up to 8
  int8_t* qs = nullptr;      // [m][k]
  float* d = nullptr;        // [m][nbp] f16-rounded block scales, zero padded
  float* nsum = nullptr;     // [m][nbp] -8 * sum of q per block (Q4_0's offset)
  int8_t* aqs = nullptr;     // [m][k] |q| (x86, Q8_0 weights)
  int8_t* pqs = nullptr;     // [m][k] pairs interleaved by half-block (x86, Q4_0)
  int32_t* corr = nullptr;   // [m][nb/2][8]: -8*sum of q in lanes 0 and 4 (x86, Q4_0)
  int32_t* icorr = nullptr;  // [m][nbp] -8 * sum of q per block (x86, Q4_0x8)
};

QuantAct QuantizeActivations(const float* x, int64_t m, int64_t k, oxi_dtype wt) {
  QuantAct a;
  a.m = m;
  a.k = k;
  a.nb = k / OXI_QK;
  a.nbp = (a.nb + 7) / 8 * 8;
  size_t bytes = m * k + 2 * m * a.nbp * 4 + 3 * 64;
#if OXI_KERNELS_X86
  bytes += m * k + m * (a.nb / 2) * 32 + m * a.nbp * 4 + 3 * 64;
#endif
  uint8_t* p = static_cast<uint8_t*>(Scratch(kScratchAct, bytes));
  auto take = [&p](size_t n) {
    uint8_t* r = p;
    p += (n + 63) & ~size_t{63};
    return r;
  };
  a.qs = reinterpret_cast<int8_t*>(take(m * k));
  a.d = reinterpret_cast<float*>(take(m * a.nbp * 4));
  a.nsum = reinterpret_cast<float*>(take(m * a.nbp * 4));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t b = 0; b < a.nbp; ++b) {
      if (b >= a.nb) {
        a.d[i * a.nbp + b] = a.nsum[i * a.nbp + b] = 0.0f;
        continue;
      }
      int8_t* q = a.qs + i * k + b * OXI_QK;
      a.d[i * a.nbp + b] = oxi_f16_to_f32(QuantizeBlockQ8(x + i * k + b * OXI_QK, q));
      int32_t sum = 0;
#if OXI_KERNELS_X86
      // Per-call overhead matters for small decode matmuls.
      const __m256i s16 = _mm256_maddubs_epi16(
          _mm256_set1_epi8(1), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q)));
      __m128i s32 = _mm_madd_epi16(
          _mm_add_epi16(_mm256_castsi256_si128(s16), _mm256_extracti128_si256(s16, 1)),
          _mm_set1_epi16(1));
      s32 = _mm_add_epi32(s32, _mm_shuffle_epi32(s32, 0x4e));
      s32 = _mm_add_epi32(s32, _mm_shuffle_epi32(s32, 0xb1));
      sum = _mm_cvtsi128_si32(s32);
#else
      for (int j = 0; j < OXI_QK; ++j) sum += q[j];
#endif
      a.nsum[i * a.nbp + b] = static_cast<float>(-8 * sum);
    }
  }
#if OXI_KERNELS_X86
  if (wt == OXI_DTYPE_Q4_0_X8) {
    a.icorr = reinterpret_cast<int32_t*>(take(m * a.nbp * 4));
    for (int64_t i = 0; i < m * a.nbp; ++i) a.icorr[i] = static_cast<int32_t>(a.nsum[i]);
  } else if (oxi_dtype_plain(wt) == OXI_DTYPE_Q8_0) {
    a.aqs = reinterpret_cast<int8_t*>(take(m * k));
    for (int64_t i = 0; i < m * k; i += 32) {
      const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a.qs + i));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(a.aqs + i), _mm256_abs_epi8(q));
    }
  } else {
    a.pqs = reinterpret_cast<int8_t*>(take(m * k));
    const int64_t np = a.nb / 2;
    a.corr = reinterpret_cast<int32_t*>(take(m * np * 32));
    for (int64_t i = 0; i < m; ++i) {
      const int8_t* src = a.qs + i * k;
      int8_t* dst = a.pqs + i * k;
      for (int64_t pr = 0; pr < np; ++pr) {
        const int8_t* b0 = src + pr * 64;
        int8_t* o = dst + pr * 64;
        std::memcpy(o, b0, 16);
        std::memcpy(o + 16, b0 + 32, 16);
        std::memcpy(o + 32, b0 + 16, 16);
        std::memcpy(o + 48, b0 + 48, 16);
      }
      for (int64_t pr = 0; pr < np; ++pr) {
        int32_t* c = a.corr + (i * np + pr) * 8;
        std::memset(c, 0, 32);
        c[0] = static_cast<int32_t>(a.nsum[i * a.nbp + 2 * pr]);
        c[4] = static_cast<int32_t>(a.nsum[i * a.nbp + 2 * pr + 1]);
      }
      if (a.nb % 2) std::memcpy(dst + np * 64, src + np * 64, 32);
    }
  }
#else
  (void)wt;
#endif
  return a;
}

// Integer dot of one weight block with one activation block (reference).
inline int32_t BlockDotQ8(const oxi_block_q8_0& w, const int8_t* q) {
  int32_t s = 0;
  for (int j = 0; j < OXI_QK; ++j) s += static_cast<int32_t>(w.qs[j]) * q[j];
  return s;
}
inline int32_t BlockDotQ4(const oxi_block_q4_0& w, const int8_t* q) {
  int32_t s = 0;
  for (int j = 0; j < OXI_QK / 2; ++j) {
    s += ((w.qs[j] & 0x0f) - 8) * q[j];
    s += ((w.qs[j] >> 4) - 8) * q[j + OXI_QK / 2];
  }
  return s;
}

// Reference quantised matmul over weight rows [j0, j1), every m.
void QuantRowsRef(const QuantAct& a, const uint8_t* w, oxi_dtype wt, int64_t row_bytes, int64_t n,
                  float* y, int64_t j0, int64_t j1) {
  const oxi_dtype p = oxi_dtype_plain(wt);
  const int64_t bb = oxi_dtype_block_bytes(p);
  alignas(8) uint8_t tmp[sizeof(oxi_block_q8_0)];
  for (int64_t j = j0; j < j1; ++j) {
    const uint8_t* row = w + j * row_bytes;
    for (int64_t i = 0; i < a.m; ++i) {
      const int8_t* q = a.qs + i * a.k;
      const float* dx = a.d + i * a.nbp;
      float s = 0.0f;
      for (int64_t b = 0; b < a.nb; ++b) {
        const uint8_t* at = row + b * bb;
        if (IsX8(wt)) {
          oxi_dtype_x8_block(w, wt, a.k, j, b, tmp);
          at = tmp;
        }
        if (p == OXI_DTYPE_Q8_0) {
          const auto& blk = *reinterpret_cast<const oxi_block_q8_0*>(at);
          s += oxi_f16_to_f32(blk.d) * dx[b] * static_cast<float>(BlockDotQ8(blk, q + b * OXI_QK));
        } else {
          const auto& blk = *reinterpret_cast<const oxi_block_q4_0*>(at);
          s += oxi_f16_to_f32(blk.d) * dx[b] * static_cast<float>(BlockDotQ4(blk, q + b * OXI_QK));
        }
      }
      y[i * n + j] = s;
    }
  }
}

#if OXI_KERNELS_X86
// Weight block scales of blocks b and b+1 as f32 lanes 0 and 1. Read inline,
// in the same pass as the quants: a separate pass over the scales touches
// every cache line of the row too, and pays its memory latency twice.
template <typename Block>
inline __m128 PairScales(const Block* blk, int64_t b) {
  const uint32_t dd = static_cast<uint32_t>(blk[b].d) | (static_cast<uint32_t>(blk[b + 1].d) << 16);
  return _mm_cvtph_ps(_mm_cvtsi32_si128(static_cast<int>(dd)));
}
inline __m128 LoadPair(const float* p) {
  return _mm_castpd_ps(_mm_load_sd(reinterpret_cast<const double*>(p)));
}

// Q8_0 weights: M activation rows against R weight rows, blocks in pairs:
// |x| * sign(w, x) bytes multiplied pairwise to int16, summed to int32.
template <int M, int R>
void QuantTileQ8(const QuantAct& a, const uint8_t* w, int64_t row_bytes, float* y, int64_t n) {
  const int64_t nb = a.nb, nbp = a.nbp;
  const __m256i ones = _mm256_set1_epi16(1);
  const __m256i sel1 = _mm256_set1_epi32(1);
  const oxi_block_q8_0* blk[R];
  for (int r = 0; r < R; ++r) blk[r] = reinterpret_cast<const oxi_block_q8_0*>(w + r * row_bytes);
  __m256 acc[M][R];
#pragma GCC unroll 8
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) acc[i][r] = _mm256_setzero_ps();
  }
  int64_t b = 0;
  for (; b + 2 <= nb; b += 2) {
    __m256i w0[R], w1[R];
    __m128 dw[R];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      w0[r] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk[r][b].qs));
      w1[r] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk[r][b + 1].qs));
      dw[r] = PairScales(blk[r], b);
    }
#pragma GCC unroll 8
    for (int i = 0; i < M; ++i) {
      const int8_t* q = a.qs + i * a.k + b * OXI_QK;
      const int8_t* aq = a.aqs + i * a.k + b * OXI_QK;
      const __m256i q0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q));
      const __m256i q1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 32));
      const __m256i a0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(aq));
      const __m256i a1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(aq + 32));
      const __m128 dx = LoadPair(a.d + i * nbp + b);
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        const __m256i p0 =
            _mm256_madd_epi16(_mm256_maddubs_epi16(a0, _mm256_sign_epi8(w0[r], q0)), ones);
        const __m256i p1 =
            _mm256_madd_epi16(_mm256_maddubs_epi16(a1, _mm256_sign_epi8(w1[r], q1)), ones);
        const __m256 s = _mm256_castps128_ps256(_mm_mul_ps(dw[r], dx));
        const __m256 s0 = _mm256_broadcastss_ps(_mm256_castps256_ps128(s));
        const __m256 s1 = _mm256_permutevar8x32_ps(s, sel1);
        acc[i][r] = _mm256_fmadd_ps(s0, _mm256_cvtepi32_ps(p0), acc[i][r]);
        acc[i][r] = _mm256_fmadd_ps(s1, _mm256_cvtepi32_ps(p1), acc[i][r]);
      }
    }
  }
#pragma GCC unroll 8
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      float s = Hsum(acc[i][r]);
      if (b < nb) {
        s += oxi_f16_to_f32(blk[r][b].d) * a.d[i * nbp + b] *
             static_cast<float>(BlockDotQ8(blk[r][b], a.qs + i * a.k + b * OXI_QK));
      }
      y[i * n + r] = s;
    }
  }
}

// Q4_0 weights, blocks in pairs: one 32-byte register holds both blocks'
// nibbles; the low and high nibbles (unsigned, 0..15) multiply the
// activations directly and the "- 8" comes in as -8 * sum(x) per block.
template <int M, int R>
void QuantTileQ4(const QuantAct& a, const uint8_t* w, int64_t row_bytes, float* y, int64_t n) {
  const int64_t nb = a.nb, nbp = a.nbp;
  const int64_t np = nb / 2;
  const __m256i ones = _mm256_set1_epi16(1);
  const __m256i m4 = _mm256_set1_epi8(0x0f);
  const __m256i spread = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1);
  const oxi_block_q4_0* blk[R];
  for (int r = 0; r < R; ++r) blk[r] = reinterpret_cast<const oxi_block_q4_0*>(w + r * row_bytes);
  __m256 acc[M][R];
#pragma GCC unroll 8
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) acc[i][r] = _mm256_setzero_ps();
  }
  for (int64_t pr = 0; pr < np; ++pr) {
    const int64_t b = 2 * pr;
    __m256i lo[R], hi[R];
    __m128 dw[R];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m256i raw = _mm256_inserti128_si256(
          _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(blk[r][b].qs))),
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(blk[r][b + 1].qs)), 1);
      lo[r] = _mm256_and_si256(raw, m4);
      hi[r] = _mm256_and_si256(_mm256_srli_epi16(raw, 4), m4);
      dw[r] = PairScales(blk[r], b);
    }
#pragma GCC unroll 8
    for (int i = 0; i < M; ++i) {
      const int8_t* q = a.pqs + i * a.k + pr * 64;
      const __m256i xl = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q));
      const __m256i xh = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 32));
      const __m256i corr =
          _mm256_load_si256(reinterpret_cast<const __m256i*>(a.corr + (i * np + pr) * 8));
      const __m128 dx = LoadPair(a.d + i * nbp + b);
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        const __m256i s16 =
            _mm256_add_epi16(_mm256_maddubs_epi16(lo[r], xl), _mm256_maddubs_epi16(hi[r], xh));
        const __m256i s32 = _mm256_add_epi32(_mm256_madd_epi16(s16, ones), corr);
        const __m256 s =
            _mm256_permutevar8x32_ps(_mm256_castps128_ps256(_mm_mul_ps(dw[r], dx)), spread);
        acc[i][r] = _mm256_fmadd_ps(s, _mm256_cvtepi32_ps(s32), acc[i][r]);
      }
    }
  }
#pragma GCC unroll 8
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      float s = Hsum(acc[i][r]);
      if (nb % 2) {
        const int64_t bl = nb - 1;
        s += oxi_f16_to_f32(blk[r][bl].d) * a.d[i * nbp + bl] *
             static_cast<float>(BlockDotQ4(blk[r][bl], a.qs + i * a.k + bl * OXI_QK));
      }
      y[i * n + r] = s;
    }
  }
}

template <int M, int R>
void QuantRowsX86(const QuantAct& a, const uint8_t* w, oxi_dtype wt, int64_t row_bytes, int64_t n,
                  float* y, int64_t j0, int64_t j1) {
  int64_t j = j0;
  auto tile = [&](auto rows_tag, int64_t jj) {
    constexpr int kR = decltype(rows_tag)::value;
    if (wt == OXI_DTYPE_Q8_0) {
      QuantTileQ8<M, kR>(a, w + jj * row_bytes, row_bytes, y + jj, n);
    } else {
      QuantTileQ4<M, kR>(a, w + jj * row_bytes, row_bytes, y + jj, n);
    }
  };
  for (; j + R <= j1; j += R) tile(std::integral_constant<int, R>(), j);
  for (; j < j1; ++j) tile(std::integral_constant<int, 1>(), j);
}

inline __m256i Broadcast4(const int8_t* p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return _mm256_set1_epi32(v);
}

// Integer dots of one Q4_0x8 super-block (eight weight rows, block column b)
// with activation rows i0..i0+M-1: lane r of s32[i] is weight row r's dot.
// A maddubs of four of a row's nibbles against four broadcast activations
// gives its partial dot in its own lane, so no horizontal sums are needed.
// Up to 16 products of nibble <= 15 and |q| <= 127 fit an int16 lane, so the
// 8 maddubs per block add in int16; the nibbles' "- 8" comes in as -8 * sum(q).
template <int M>
inline void Q4X8BlockDots(const QuantAct& a, int64_t i0, int64_t b, const uint8_t* sb,
                          __m256i* s32) {
  const __m256i m4 = _mm256_set1_epi8(0x0f);
  const __m256i ones = _mm256_set1_epi16(1);
  __m256i s16[M];
#pragma GCC unroll 4
  for (int i = 0; i < M; ++i) s16[i] = _mm256_setzero_si256();
#pragma GCC unroll 4
  for (int t = 0; t < 4; ++t) {
    const __m256i raw = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sb + 16 + 32 * t));
    const __m256i lo = _mm256_and_si256(raw, m4);
    const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(raw, 4), m4);
#pragma GCC unroll 4
    for (int i = 0; i < M; ++i) {
      const int8_t* q = a.qs + (i0 + i) * a.k + b * OXI_QK + 4 * t;
      s16[i] = _mm256_add_epi16(s16[i], _mm256_maddubs_epi16(lo, Broadcast4(q)));
      s16[i] = _mm256_add_epi16(s16[i], _mm256_maddubs_epi16(hi, Broadcast4(q + 16)));
    }
  }
#pragma GCC unroll 4
  for (int i = 0; i < M; ++i) {
    s32[i] = _mm256_add_epi32(_mm256_madd_epi16(s16[i], ones),
                              _mm256_set1_epi32(a.icorr[(i0 + i) * a.nbp + b]));
  }
}

// The same for Q8_0x8, with Q8_0's |x| * sign(w, x) products (int16 pairs
// that must widen to int32 before they add).
template <int M>
inline void Q8X8BlockDots(const QuantAct& a, int64_t i0, int64_t b, const uint8_t* sb,
                          __m256i* s32) {
  const __m256i ones = _mm256_set1_epi16(1);
#pragma GCC unroll 4
  for (int i = 0; i < M; ++i) s32[i] = _mm256_setzero_si256();
#pragma GCC unroll 8
  for (int t = 0; t < 8; ++t) {
    const __m256i wq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sb + 16 + 32 * t));
#pragma GCC unroll 4
    for (int i = 0; i < M; ++i) {
      const int64_t off = (i0 + i) * a.k + b * OXI_QK + 4 * t;
      const __m256i p16 = _mm256_maddubs_epi16(Broadcast4(a.aqs + off),
                                               _mm256_sign_epi8(wq, Broadcast4(a.qs + off)));
      s32[i] = _mm256_add_epi32(s32[i], _mm256_madd_epi16(p16, ones));
    }
  }
}

// S groups of eight weight rows (Q4_0x8 or Q8_0x8, by Block) against
// activation rows i0..i0+M-1: the eight rows' results come out side by side
// in one register, and each group is read as one sequential stream. S groups
// far apart keep S DRAM streams in flight, which one core needs to approach
// its read limit (on this Zen 3 VM, 1 thread: one stream ~16 GB/s, two ~20,
// four ~23).
template <typename Block, int M, int S, typename BlockDots>
void X8GroupsOf(BlockDots dots, const QuantAct& a, int64_t i0, const uint8_t* const* g,
                float* const* y, int64_t n) {
  constexpr int64_t kSuper = OXI_X8_ROWS * sizeof(Block);
  __m256 acc[S][M];
#pragma GCC unroll 4
  for (int s = 0; s < S; ++s) {
#pragma GCC unroll 4
    for (int i = 0; i < M; ++i) acc[s][i] = _mm256_setzero_ps();
  }
  for (int64_t b = 0; b < a.nb; ++b) {
#pragma GCC unroll 4
    for (int s = 0; s < S; ++s) {
      const uint8_t* sb = g[s] + b * kSuper;
      const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(sb)));
      __m256i s32[M];
      dots(a, i0, b, sb, s32);
#pragma GCC unroll 4
      for (int i = 0; i < M; ++i) {
        acc[s][i] = _mm256_fmadd_ps(_mm256_mul_ps(dw, _mm256_set1_ps(a.d[(i0 + i) * a.nbp + b])),
                                    _mm256_cvtepi32_ps(s32[i]), acc[s][i]);
      }
    }
  }
#pragma GCC unroll 4
  for (int s = 0; s < S; ++s) {
#pragma GCC unroll 4
    for (int i = 0; i < M; ++i) _mm256_storeu_ps(y[s] + (i0 + i) * n, acc[s][i]);
  }
}

template <int M, int S>
void X8Groups(const QuantAct& a, oxi_dtype wt, int64_t i0, const uint8_t* const* g, float* const* y,
              int64_t n) {
  if (wt == OXI_DTYPE_Q4_0_X8) {
    X8GroupsOf<oxi_block_q4_0, M, S>(Q4X8BlockDots<M>, a, i0, g, y, n);
  } else {
    X8GroupsOf<oxi_block_q8_0, M, S>(Q8X8BlockDots<M>, a, i0, g, y, n);
  }
}

// All activation rows against S groups: one row at a time with four streams,
// two rows with two, else four rows (registers run out beyond); a second
// pass over a group finds it in L1/L2.
template <int S>
void X8AllRows(const QuantAct& a, oxi_dtype wt, const uint8_t* const* g, float* const* y,
               int64_t n) {
  constexpr int kStep = S == 4 ? 1 : S == 2 ? 2 : 4;
  for (int64_t i0 = 0; i0 < a.m; i0 += kStep) {
    switch (std::min<int64_t>(kStep, a.m - i0)) {
      case 1:
        X8Groups<1, S>(a, wt, i0, g, y, n);
        break;
      case 2:
        X8Groups<2, S>(a, wt, i0, g, y, n);
        break;
      case 3:
        X8Groups<3, S>(a, wt, i0, g, y, n);
        break;
      default:
        X8Groups<kStep, S>(a, wt, i0, g, y, n);
        break;
    }
  }
}

// Groups [g0, g1) walked as S sequential streams, one from the start of each
// of S equal parts; the leftover groups one at a time.
template <int S>
void X8Streams(const QuantAct& a, const uint8_t* w, oxi_dtype wt, int64_t group_bytes, int64_t n,
               float* y, int64_t g0, int64_t g1) {
  const int64_t part = (g1 - g0) / S;
  for (int64_t j = 0; j < part; ++j) {
    const uint8_t* g[S];
    float* yg[S];
    for (int s = 0; s < S; ++s) {
      const int64_t gi = g0 + s * part + j;
      g[s] = w + gi * group_bytes;
      yg[s] = y + gi * OXI_X8_ROWS;
    }
    X8AllRows<S>(a, wt, g, yg, n);
  }
  for (int64_t gi = g0 + S * part; gi < g1; ++gi) {
    const uint8_t* g[1] = {w + gi * group_bytes};
    float* yg[1] = {y + gi * OXI_X8_ROWS};
    X8AllRows<1>(a, wt, g, yg, n);
  }
}

// Decode on _X8 weights: each thread's contiguous range of groups as several
// sequential streams (four for one activation row, two for more).
void QuantDecodeX8(const QuantAct& a, const uint8_t* w, oxi_dtype wt, int64_t row_bytes, int64_t n,
                   float* y) {
  const int64_t group_bytes = OXI_X8_ROWS * row_bytes;
  Parallel(n / OXI_X8_ROWS, 2, [&](int64_t g0, int64_t g1) {
    if (a.m == 1) {
      X8Streams<4>(a, w, wt, group_bytes, n, y, g0, g1);
    } else {
      X8Streams<2>(a, w, wt, group_bytes, n, y, g0, g1);
    }
  });
}

// Prefill on _X8 weights (m > 8): blocks of 64 activation rows (64 x k int8,
// L2-resident) against every group of the thread's range, four rows per pass
// over a group, which stays in L1 across the passes.
void QuantGemmX8(const QuantAct& a, const uint8_t* w, oxi_dtype wt, int64_t row_bytes, int64_t n,
                 float* y) {
  constexpr int64_t kRowBlock = 64;
  const int64_t group_bytes = OXI_X8_ROWS * row_bytes;
  Parallel(n / OXI_X8_ROWS, 1, [&](int64_t g0, int64_t g1) {
    for (int64_t r0 = 0; r0 < a.m; r0 += kRowBlock) {
      const int64_t r1 = std::min(a.m, r0 + kRowBlock);
      for (int64_t gi = g0; gi < g1; ++gi) {
        const uint8_t* g[1] = {w + gi * group_bytes};
        float* yg[1] = {y + gi * OXI_X8_ROWS};
        int64_t i0 = r0;
        for (; i0 + 4 <= r1; i0 += 4) X8Groups<4, 1>(a, wt, i0, g, yg, n);
        switch (r1 - i0) {
          case 1:
            X8Groups<1, 1>(a, wt, i0, g, yg, n);
            break;
          case 2:
            X8Groups<2, 1>(a, wt, i0, g, yg, n);
            break;
          case 3:
            X8Groups<3, 1>(a, wt, i0, g, yg, n);
            break;
          default:
            break;
        }
      }
    }
  });
}
#endif  // OXI_KERNELS_X86

// Weight rows per parallel range in decode: big enough to amortise dispatch.
constexpr int64_t kDecodeGrain = 16;
// Largest m served by the weight-streaming decode kernels.
constexpr int64_t kDecodeMaxM = 8;

void QuantDecode(const QuantAct& a, const uint8_t* w, oxi_dtype wt, int64_t row_bytes, int64_t n,
                 float* y) {
#if OXI_KERNELS_X86
  if (IsX8(wt) && a.m <= kDecodeMaxM) {
    QuantDecodeX8(a, w, wt, row_bytes, n, y);
    return;
  }
#endif
  Parallel(n, kDecodeGrain, [&](int64_t j0, int64_t j1) {
#if OXI_KERNELS_X86
    switch (a.m) {
      case 1:
        if (wt == OXI_DTYPE_Q8_0) {
          QuantRowsX86<1, 4>(a, w, wt, row_bytes, n, y, j0, j1);
        } else {
          // One row at a time: each row is then one long sequential stream,
          // which the hardware prefetcher follows (several rows side by side
          // were 1.5x slower on a weight streamed from DRAM).
          QuantRowsX86<1, 1>(a, w, wt, row_bytes, n, y, j0, j1);
        }
        return;
      case 2:
        QuantRowsX86<2, 2>(a, w, wt, row_bytes, n, y, j0, j1);
        return;
      case 3:
        QuantRowsX86<3, 2>(a, w, wt, row_bytes, n, y, j0, j1);
        return;
      case 4:
        QuantRowsX86<4, 2>(a, w, wt, row_bytes, n, y, j0, j1);
        return;
      case 5:
        QuantRowsX86<5, 1>(a, w, wt, row_bytes, n, y, j0, j1);
        return;
      case 6:
        QuantRowsX86<6, 1>(a, w, wt, row_bytes, n, y, j0, j1);
        return;
      case 7:
        QuantRowsX86<7, 1>(a, w, wt, row_bytes, n, y, j0, j1);
        return;
      case 8:
        QuantRowsX86<8, 1>(a, w, wt, row_bytes, n, y, j0, j1);
        return;
      default:
        break;
    }
#endif
    QuantRowsRef(a, w, wt, row_bytes, n, y, j0, j1);
  });
}

#if OXI_KERNELS_X86
template <int T>
inline __m256 LoadW8(const uint8_t* row, int64_t p) {
  if (T == OXI_DTYPE_F32) return _mm256_loadu_ps(reinterpret_cast<const float*>(row) + p);
  if (T == OXI_DTYPE_BF16) return LoadBf16x8(reinterpret_cast<const uint16_t*>(row) + p);
  return LoadF16x8(reinterpret_cast<const uint16_t*>(row) + p);
}
template <int T>
inline float LoadW1(const uint8_t* row, int64_t p) {
  if (T == OXI_DTYPE_F32) return reinterpret_cast<const float*>(row)[p];
  if (T == OXI_DTYPE_BF16) return oxi_bf16_to_f32(reinterpret_cast<const uint16_t*>(row)[p]);
  return oxi_f16_to_f32(reinterpret_cast<const uint16_t*>(row)[p]);
}

// Float weights: M activation rows against R weight rows, streaming W once.
template <int T, int M, int R>
void DenseTile(const float* x, int64_t k, const uint8_t* w, int64_t row_bytes, float* y, int64_t n,
               int64_t y_stride = 1) {
  __m256 acc[M][R];
  for (int i = 0; i < M; ++i)
    for (int r = 0; r < R; ++r) acc[i][r] = _mm256_setzero_ps();
  int64_t p = 0;
  for (; p + 8 <= k; p += 8) {
    __m256 wv[R];
    for (int r = 0; r < R; ++r) wv[r] = LoadW8<T>(w + r * row_bytes, p);
    for (int i = 0; i < M; ++i) {
      const __m256 xv = _mm256_loadu_ps(x + i * k + p);
      for (int r = 0; r < R; ++r) acc[i][r] = _mm256_fmadd_ps(xv, wv[r], acc[i][r]);
    }
  }
  for (int i = 0; i < M; ++i) {
    for (int r = 0; r < R; ++r) {
      float s = Hsum(acc[i][r]);
      for (int64_t q = p; q < k; ++q) s += x[i * k + q] * LoadW1<T>(w + r * row_bytes, q);
      y[i * n + r * y_stride] = s;
    }
  }
}

template <int T, int M, int R>
void DenseRows(const float* x, int64_t k, const uint8_t* w, int64_t row_bytes, int64_t n, float* y,
               int64_t j0, int64_t j1) {
  int64_t j = j0;
  for (; j + R <= j1; j += R) DenseTile<T, M, R>(x, k, w + j * row_bytes, row_bytes, y + j, n);
  for (; j < j1; ++j) DenseTile<T, M, 1>(x, k, w + j * row_bytes, row_bytes, y + j, n);
}

// As DenseRows with a tile's rows from R equal parts of [j0, j1) (see
// Bf16RowsSpread).
template <int T, int M, int R>
void DenseRowsSpread(const float* x, int64_t k, const uint8_t* w, int64_t row_bytes, int64_t n,
                     float* y, int64_t j0, int64_t j1) {
  const int64_t part = (j1 - j0) / R;
  for (int64_t t = 0; t < part; ++t) {
    const int64_t j = j0 + t;
    DenseTile<T, M, R>(x, k, w + j * row_bytes, part * row_bytes, y + j, n, part);
  }
  for (int64_t j = j0 + R * part; j < j1; ++j) {
    DenseTile<T, M, 1>(x, k, w + j * row_bytes, row_bytes, y + j, n);
  }
}

// bf16 weights without shuffles: a 32-byte load holds 16 elements; shifting
// each 32-bit lane left by 16 gives the even elements as f32 and masking the
// low half gives the odd ones. The activations are split into even and odd
// halves once per call (xs: per row, [k16/2] even then [k16/2] odd).
template <int M, int R>
void Bf16Tile(const float* x, const float* xs, int64_t k, const uint8_t* w, int64_t row_bytes,
              float* y, int64_t n, int64_t y_stride = 1) {
  const int64_t k16 = k / 16 * 16, h = k16 / 2;
  const __m256i hi_mask = _mm256_set1_epi32(static_cast<int>(0xffff0000u));
  __m256 ae[M][R], ao[M][R];
#pragma GCC unroll 8
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) ae[i][r] = ao[i][r] = _mm256_setzero_ps();
  }
  for (int64_t p = 0; p < k16; p += 16) {
    __m256 we[R], wo[R];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(
          reinterpret_cast<const uint16_t*>(w + r * row_bytes) + p));
      we[r] = _mm256_castsi256_ps(_mm256_slli_epi32(v, 16));
      wo[r] = _mm256_castsi256_ps(_mm256_and_si256(v, hi_mask));
    }
#pragma GCC unroll 8
    for (int i = 0; i < M; ++i) {
      const __m256 xe = _mm256_loadu_ps(xs + i * k16 + p / 2);
      const __m256 xo = _mm256_loadu_ps(xs + i * k16 + h + p / 2);
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        ae[i][r] = _mm256_fmadd_ps(xe, we[r], ae[i][r]);
        ao[i][r] = _mm256_fmadd_ps(xo, wo[r], ao[i][r]);
      }
    }
  }
#pragma GCC unroll 8
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      float s = Hsum(_mm256_add_ps(ae[i][r], ao[i][r]));
      const uint16_t* wr = reinterpret_cast<const uint16_t*>(w + r * row_bytes);
      for (int64_t q = k16; q < k; ++q) s += x[i * k + q] * oxi_bf16_to_f32(wr[q]);
      y[i * n + r * y_stride] = s;
    }
  }
}

template <int M, int R>
void Bf16Rows(const float* x, const float* xs, int64_t k, const uint8_t* w, int64_t row_bytes,
              int64_t n, float* y, int64_t j0, int64_t j1) {
  int64_t j = j0;
  for (; j + R <= j1; j += R) Bf16Tile<M, R>(x, xs, k, w + j * row_bytes, row_bytes, y + j, n);
  for (; j < j1; ++j) Bf16Tile<M, 1>(x, xs, k, w + j * row_bytes, row_bytes, y + j, n);
}

// As Bf16Rows, but a tile's R rows come from R equal parts of [j0, j1): R
// sequential streams far apart, which one core needs in flight to approach
// its read limit (adjacent rows end their streams every few KiB).
template <int M, int R>
void Bf16RowsSpread(const float* x, const float* xs, int64_t k, const uint8_t* w, int64_t row_bytes,
                    int64_t n, float* y, int64_t j0, int64_t j1) {
  const int64_t part = (j1 - j0) / R;
  for (int64_t t = 0; t < part; ++t) {
    const int64_t j = j0 + t;
    Bf16Tile<M, R>(x, xs, k, w + j * row_bytes, part * row_bytes, y + j, n, part);
  }
  for (int64_t j = j0 + R * part; j < j1; ++j) {
    Bf16Tile<M, 1>(x, xs, k, w + j * row_bytes, row_bytes, y + j, n);
  }
}

void Bf16DecodeX86(const float* x, int64_t m, int64_t k, const uint8_t* w, int64_t row_bytes,
                   int64_t n, float* y) {
  const int64_t k16 = k / 16 * 16, h = k16 / 2;
  float* xs = static_cast<float*>(Scratch(kScratchActF32, (m * k16 + 8) * sizeof(float)));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t q = 0; q < h; ++q) {
      xs[i * k16 + q] = x[i * k + 2 * q];
      xs[i * k16 + h + q] = x[i * k + 2 * q + 1];
    }
  }
  Parallel(n, kDecodeGrain, [&](int64_t j0, int64_t j1) {
    switch (m) {
      case 1:
        Bf16RowsSpread<1, 4>(x, xs, k, w, row_bytes, n, y, j0, j1);
        break;
      case 2:
        Bf16Rows<2, 2>(x, xs, k, w, row_bytes, n, y, j0, j1);
        break;
      case 3:
        Bf16Rows<3, 2>(x, xs, k, w, row_bytes, n, y, j0, j1);
        break;
      case 4:
        Bf16Rows<4, 1>(x, xs, k, w, row_bytes, n, y, j0, j1);
        break;
      case 5:
        Bf16Rows<5, 1>(x, xs, k, w, row_bytes, n, y, j0, j1);
        break;
      case 6:
        Bf16Rows<6, 1>(x, xs, k, w, row_bytes, n, y, j0, j1);
        break;
      case 7:
        Bf16Rows<7, 1>(x, xs, k, w, row_bytes, n, y, j0, j1);
        break;
      default:
        Bf16Rows<8, 1>(x, xs, k, w, row_bytes, n, y, j0, j1);
        break;
    }
  });
}

template <int T>
void DenseDecodeX86(const float* x, int64_t m, int64_t k, const uint8_t* w, int64_t row_bytes,
                    int64_t n, float* y) {
  Parallel(n, kDecodeGrain, [&](int64_t j0, int64_t j1) {
    switch (m) {
      case 1:
        DenseRowsSpread<T, 1, 4>(x, k, w, row_bytes, n, y, j0, j1);
        break;
      case 2:
        DenseRows<T, 2, 4>(x, k, w, row_bytes, n, y, j0, j1);
        break;
      case 3:
        DenseRows<T, 3, 3>(x, k, w, row_bytes, n, y, j0, j1);
        break;
      case 4:
        DenseRows<T, 4, 2>(x, k, w, row_bytes, n, y, j0, j1);
        break;
      case 5:
        DenseRows<T, 5, 2>(x, k, w, row_bytes, n, y, j0, j1);
        break;
      case 6:
        DenseRows<T, 6, 2>(x, k, w, row_bytes, n, y, j0, j1);
        break;
      case 7:
        DenseRows<T, 7, 1>(x, k, w, row_bytes, n, y, j0, j1);
        break;
      default:
        DenseRows<T, 8, 1>(x, k, w, row_bytes, n, y, j0, j1);
        break;
    }
  });
}

// ---- prefill GEMM (BLIS-style): weight panels converted to f32 and packed
// k-major in cache, a 6x16 register tile of outputs accumulated with
// broadcast activations, so the tile is reduced only once per k block.
constexpr int64_t kMR = 6;    // activation rows per register tile
constexpr int64_t kNR = 16;   // weight rows (output columns) per register tile
constexpr int64_t kKC = 256;  // k per packed block: a 16 KiB micro-panel in L1
constexpr int64_t kNC = 64;   // weight rows per packed block (64 KiB, in L2)

template <int RM>
void GemmMicro(const float* x, int64_t ldx, const float* bp, int64_t kc, float* y, int64_t ldy,
               int64_t cols, bool accumulate) {
  // Every loop over RM is unrolled so that GCC keeps the tile in registers.
  __m256 c0[RM], c1[RM];
  const float* xr[RM];
#pragma GCC unroll 8
  for (int i = 0; i < RM; ++i) {
    c0[i] = c1[i] = _mm256_setzero_ps();
    xr[i] = x + i * ldx;
  }
  for (int64_t p = 0; p < kc; ++p) {
    const __m256 b0 = _mm256_load_ps(bp + p * kNR);
    const __m256 b1 = _mm256_load_ps(bp + p * kNR + 8);
#pragma GCC unroll 8
    for (int i = 0; i < RM; ++i) {
      const __m256 a = _mm256_broadcast_ss(xr[i] + p);
      c0[i] = _mm256_fmadd_ps(a, b0, c0[i]);
      c1[i] = _mm256_fmadd_ps(a, b1, c1[i]);
    }
  }
  alignas(32) float tmp[RM][kNR];
#pragma GCC unroll 8
  for (int i = 0; i < RM; ++i) {
    float* yi = y + i * ldy;
    if (cols == kNR) {
      if (accumulate) {
        c0[i] = _mm256_add_ps(c0[i], _mm256_loadu_ps(yi));
        c1[i] = _mm256_add_ps(c1[i], _mm256_loadu_ps(yi + 8));
      }
      _mm256_storeu_ps(yi, c0[i]);
      _mm256_storeu_ps(yi + 8, c1[i]);
    } else {
      _mm256_store_ps(tmp[i], c0[i]);
      _mm256_store_ps(tmp[i] + 8, c1[i]);
    }
  }
  if (cols == kNR) return;
  for (int i = 0; i < RM; ++i) {
    float* yi = y + i * ldy;
    for (int64_t j = 0; j < cols; ++j) yi[j] = accumulate ? yi[j] + tmp[i][j] : tmp[i][j];
  }
}

// 8x8 transpose of rows src[0..7] (stride lds) into dst (stride ldd).
inline void Transpose8x8(const float* src, int64_t lds, float* dst, int64_t ldd) {
  __m256 r[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm256_load_ps(src + i * lds);
  __m256 t[8];
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  __m256 u[8];
  for (int i = 0; i < 2; ++i) {
    u[4 * i + 0] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
    u[4 * i + 1] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0xee);
    u[4 * i + 2] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
    u[4 * i + 3] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xee);
  }
  for (int i = 0; i < 4; ++i) {
    _mm256_store_ps(dst + i * ldd, _mm256_permute2f128_ps(u[i], u[i + 4], 0x20));
    _mm256_store_ps(dst + (i + 4) * ldd, _mm256_permute2f128_ps(u[i], u[i + 4], 0x31));
  }
}

using GemmMicroFn = void (*)(const float*, int64_t, const float*, int64_t, float*, int64_t, int64_t,
                             bool);

void GemmX86(const float* x, int64_t m, int64_t k, const uint8_t* w, oxi_dtype wt,
             int64_t row_bytes, int64_t n, float* y) {
  static constexpr GemmMicroFn kMicro[kMR] = {GemmMicro<1>, GemmMicro<2>, GemmMicro<3>,
                                              GemmMicro<4>, GemmMicro<5>, GemmMicro<6>};
  const int64_t blocks = (n + kNC - 1) / kNC;
  Parallel(blocks, 1, [&](int64_t b0, int64_t b1) {
    // Converted rows (k contiguous), then the packed panels [kNC/kNR][kKC][kNR].
    float* rows =
        static_cast<float*>(Scratch(kScratchWeights, (kNR * kKC + kNC * kKC) * sizeof(float)));
    float* packed = rows + kNR * kKC;
    for (int64_t blk = b0; blk < b1; ++blk) {
      const int64_t j0 = blk * kNC;
      const int64_t nc = std::min(kNC, n - j0);
      const int64_t panels = (nc + kNR - 1) / kNR;
      for (int64_t k0 = 0; k0 < k; k0 += kKC) {
        const int64_t kc = std::min(kKC, k - k0);
        const int64_t kc8 = (kc + 7) / 8 * 8;
        for (int64_t pn = 0; pn < panels; ++pn) {
          const int64_t cols = std::min(kNR, nc - pn * kNR);
          for (int64_t c = 0; c < kNR; ++c) {
            float* dst = rows + c * kKC;
            if (c < cols) {
              WeightRowToF32(w, wt, k, j0 + pn * kNR + c, k0, kc, dst);
              for (int64_t q = kc; q < kc8; ++q) dst[q] = 0.0f;
            } else {
              std::memset(dst, 0, kc8 * sizeof(float));
            }
          }
          float* pp = packed + pn * kKC * kNR;
          for (int64_t q = 0; q < kc8; q += 8) {
            Transpose8x8(rows + q, kKC, pp + q * kNR, kNR);
            Transpose8x8(rows + 8 * kKC + q, kKC, pp + q * kNR + 8, kNR);
          }
        }
        for (int64_t i = 0; i < m; i += kMR) {
          const int64_t rm = std::min(kMR, m - i);
          for (int64_t pn = 0; pn < panels; ++pn) {
            const int64_t cols = std::min(kNR, nc - pn * kNR);
            kMicro[rm - 1](x + i * k + k0, k, packed + pn * kKC * kNR, kc,
                           y + i * n + j0 + pn * kNR, n, cols, k0 > 0);
          }
        }
      }
    }
  });
}
#endif  // OXI_KERNELS_X86

// Reference float matmul: each weight row converted to f32 once, then dotted
// with every activation row.
[[maybe_unused]] void DenseRef(const float* x, int64_t m, int64_t k, const uint8_t* w, oxi_dtype wt,
                               int64_t row_bytes, int64_t n, float* y) {
  Parallel(n, 4, [&](int64_t j0, int64_t j1) {
    float* row = static_cast<float*>(Scratch(kScratchWeights, k * sizeof(float)));
    for (int64_t j = j0; j < j1; ++j) {
      RowToF32(w + j * row_bytes, wt, 0, k, row);
      for (int64_t i = 0; i < m; ++i) {
        const float* xi = x + i * k;
        float s = 0.0f;
        for (int64_t p = 0; p < k; ++p) s += xi[p] * row[p];
        y[i * n + j] = s;
      }
    }
  });
}

int32_t Matmul(void*, const float* x, int64_t m, int64_t k, const void* w, oxi_dtype wt, int64_t n,
               float* y) {
  if (m < 0 || n < 0 || k <= 0) return OXI_INVALID_ARGUMENT;
  if (!IsFloatType(wt) && !IsBlockType(wt)) return OXI_UNIMPLEMENTED;
  const int64_t row_bytes = oxi_dtype_row_bytes(wt, k);
  if (row_bytes < 0 || (IsX8(wt) && n % OXI_X8_ROWS != 0)) return OXI_INVALID_ARGUMENT;
  if (m == 0 || n == 0) return OXI_OK;
  if (x == nullptr || w == nullptr || y == nullptr) return OXI_INVALID_ARGUMENT;
  const auto* wb = static_cast<const uint8_t*>(w);
  if (IsBlockType(wt)) {
    const QuantAct a = QuantizeActivations(x, m, k, wt);
#if OXI_KERNELS_X86
    if (m > kDecodeMaxM && wt == OXI_DTYPE_Q4_0_X8) {
      // Prefill on Q4_0x8: integer dot products beat dequantising to f32
      // for the GEMM (4.5 bits per weight unpack cheaply; 1.3-1.4x here).
      QuantGemmX8(a, wb, wt, row_bytes, n, y);
      return OXI_OK;
    }
    if (m > kDecodeMaxM) {
      // Prefill: the GEMM on the dequantised activations.
      float* xf = static_cast<float*>(Scratch(kScratchActF32, m * k * sizeof(float)));
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t b = 0; b < a.nb; ++b) {
          const float d = a.d[i * a.nbp + b];
          const int8_t* q = a.qs + i * k + b * OXI_QK;
          float* o = xf + i * k + b * OXI_QK;
          for (int j = 0; j < OXI_QK; ++j) o[j] = d * static_cast<float>(q[j]);
        }
      }
      GemmX86(xf, m, k, wb, wt, row_bytes, n, y);
      return OXI_OK;
    }
#endif
    QuantDecode(a, wb, wt, row_bytes, n, y);
    return OXI_OK;
  }
#if OXI_KERNELS_X86
  if (m <= kDecodeMaxM) {
    switch (wt) {
      case OXI_DTYPE_F32:
        DenseDecodeX86<OXI_DTYPE_F32>(x, m, k, wb, row_bytes, n, y);
        break;
      case OXI_DTYPE_BF16:
        Bf16DecodeX86(x, m, k, wb, row_bytes, n, y);
        break;
      default:
        DenseDecodeX86<OXI_DTYPE_F16>(x, m, k, wb, row_bytes, n, y);
        break;
    }
  } else {
    GemmX86(x, m, k, wb, wt, row_bytes, n, y);
  }
  return OXI_OK;
#else
  DenseRef(x, m, k, wb, wt, row_bytes, n, y);
  return OXI_OK;
#endif
}

// ===================== convert, get_rows =====================

// Converts rows [g0, g1) * 8 when either side is an _X8 form: the group's
// eight rows in plain form first, then interleaved or widened.
void ConvertGroupsX8(const uint8_t* s, oxi_dtype st, uint8_t* d, oxi_dtype dt, int64_t k,
                     int64_t g0, int64_t g1) {
  const oxi_dtype sp = oxi_dtype_plain(st), dp = oxi_dtype_plain(dt);
  const int64_t sb = oxi_dtype_row_bytes(st, k), db = oxi_dtype_row_bytes(dt, k);
  const int64_t pb = std::max(sb, db);
  uint8_t* plain = static_cast<uint8_t*>(Scratch(kScratchWeights, 2 * OXI_X8_ROWS * pb + 4 * k));
  uint8_t* plain2 = plain + OXI_X8_ROWS * pb;
  float* tmp = reinterpret_cast<float*>(plain2 + OXI_X8_ROWS * pb);
  for (int64_t g = g0; g < g1; ++g) {
    const uint8_t* src = s + g * OXI_X8_ROWS * sb;
    if (IsX8(st)) {
      DeinterleaveX8(src, sp, k, plain);
      src = plain;
    }
    if (!IsX8(dt)) {
      for (int r = 0; r < OXI_X8_ROWS; ++r) {
        uint8_t* out = d + (g * OXI_X8_ROWS + r) * db;
        if (dt == OXI_DTYPE_F32) {
          RowToF32(src + r * sb, sp, 0, k, reinterpret_cast<float*>(out));
        } else {
          RowToF32(src + r * sb, sp, 0, k, tmp);
          RowFromF32(tmp, k, dt, out);
        }
      }
      continue;
    }
    if (sp != dp) {
      for (int r = 0; r < OXI_X8_ROWS; ++r) {
        if (sp == OXI_DTYPE_F32) {
          RowFromF32(reinterpret_cast<const float*>(src + r * sb), k, dp, plain2 + r * db);
        } else {
          RowToF32(src + r * sb, sp, 0, k, tmp);
          RowFromF32(tmp, k, dp, plain2 + r * db);
        }
      }
      src = plain2;
    }
    InterleaveX8(src, dp, k, d + g * OXI_X8_ROWS * db);
  }
}

int32_t Convert(void*, const void* src, oxi_dtype st, void* dst, oxi_dtype dt, int64_t rows,
                int64_t k) {
  if (rows < 0 || k < 0) return OXI_INVALID_ARGUMENT;
  const bool repack =
      st != dt && IsQuantType(oxi_dtype_plain(st)) && oxi_dtype_plain(st) == oxi_dtype_plain(dt);
  const bool ok = (IsFloatType(st) && (IsFloatType(dt) || IsBlockType(dt))) ||
                  (IsBlockType(st) && IsFloatType(dt)) || repack;
  if (!ok) return OXI_UNIMPLEMENTED;
  const int64_t sb = oxi_dtype_row_bytes(st, k), db = oxi_dtype_row_bytes(dt, k);
  if (sb < 0 || db < 0) return OXI_INVALID_ARGUMENT;
  const bool x8 = IsX8(st) || IsX8(dt);
  if (x8 && rows % OXI_X8_ROWS != 0) return OXI_INVALID_ARGUMENT;
  if (rows == 0 || k == 0) return OXI_OK;
  if (src == nullptr || dst == nullptr) return OXI_INVALID_ARGUMENT;
  const auto* s = static_cast<const uint8_t*>(src);
  auto* d = static_cast<uint8_t*>(dst);
  if (x8) {
    const int64_t grain = std::max<int64_t>(1, 8192 / k);
    Parallel(rows / OXI_X8_ROWS, grain,
             [&](int64_t g0, int64_t g1) { ConvertGroupsX8(s, st, d, dt, k, g0, g1); });
    return OXI_OK;
  }
  const int64_t grain = std::max<int64_t>(1, 65536 / k);
  Parallel(rows, grain, [&](int64_t r0, int64_t r1) {
    float* tmp = static_cast<float*>(Scratch(kScratchWeights, k * sizeof(float)));
    for (int64_t r = r0; r < r1; ++r) {
      if (st == OXI_DTYPE_F32) {
        RowFromF32(reinterpret_cast<const float*>(s + r * sb), k, dt, d + r * db);
      } else if (dt == OXI_DTYPE_F32) {
        RowToF32(s + r * sb, st, 0, k, reinterpret_cast<float*>(d + r * db));
      } else {
        RowToF32(s + r * sb, st, 0, k, tmp);
        RowFromF32(tmp, k, dt, d + r * db);
      }
    }
  });
  return OXI_OK;
}

int32_t GetRows(void*, const void* table, oxi_dtype dt, int64_t n_rows, int64_t k,
                const int32_t* ids, int64_t n_ids, float* out) {
  if (n_rows < 0 || k < 0 || n_ids < 0) return OXI_INVALID_ARGUMENT;
  if (!IsFloatType(dt) && !IsBlockType(dt)) return OXI_UNIMPLEMENTED;
  const int64_t rb = oxi_dtype_row_bytes(dt, k);
  if (rb < 0 || (IsX8(dt) && n_rows % OXI_X8_ROWS != 0)) return OXI_INVALID_ARGUMENT;
  if (n_ids == 0 || k == 0) return OXI_OK;
  if (table == nullptr || ids == nullptr || out == nullptr) return OXI_INVALID_ARGUMENT;
  for (int64_t i = 0; i < n_ids; ++i) {
    if (ids[i] < 0 || ids[i] >= n_rows) return OXI_OUT_OF_RANGE;
  }
  const auto* t = static_cast<const uint8_t*>(table);
  for (int64_t i = 0; i < n_ids; ++i) WeightRowToF32(t, dt, k, ids[i], 0, k, out + i * k);
  return OXI_OK;
}

// The SIMD variants read Q8_0 / Q4_0 fastest interleaved (see Q4X8Group);
// the scalar reference keeps the plain layout.
oxi_dtype MatmulWeightDtype(void*, oxi_dtype dt, int64_t n, int64_t k) {
#if OXI_KERNELS_X86
  if (IsQuantType(dt) && n > 0 && n % OXI_X8_ROWS == 0 && k > 0 && k % OXI_QK == 0) {
    return dt == OXI_DTYPE_Q8_0 ? OXI_DTYPE_Q8_0_X8 : OXI_DTYPE_Q4_0_X8;
  }
#endif
  (void)n;
  (void)k;
  return dt;
}

// ===================== norms, rope, softmax =====================

int32_t RmsNorm(void*, const float* x, const float* weight, float weight_offset, int64_t rows,
                int64_t dim, float eps, float* out) {
  if (rows < 0 || dim <= 0) return OXI_INVALID_ARGUMENT;
  if (rows == 0) return OXI_OK;
  if (x == nullptr || out == nullptr) return OXI_INVALID_ARGUMENT;
  Parallel(rows, std::max<int64_t>(1, 16384 / dim), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const float* xr = x + r * dim;
      float* o = out + r * dim;
      const float ss = Dot(xr, xr, dim);
      const float inv = 1.0f / std::sqrt(ss / static_cast<float>(dim) + eps);
      if (weight == nullptr) {
        for (int64_t i = 0; i < dim; ++i) o[i] = xr[i] * inv;
      } else {
        for (int64_t i = 0; i < dim; ++i) o[i] = xr[i] * inv * (weight[i] + weight_offset);
      }
    }
  });
  return OXI_OK;
}

int32_t Rope(void*, float* x, int64_t n_tok, int32_t n_heads, int32_t head_dim, int32_t rot_dim,
             const int32_t* pos, const float* inv_freq) {
  if (n_tok < 0 || n_heads <= 0 || head_dim <= 0 || rot_dim < 0 || rot_dim > head_dim ||
      rot_dim % 2 != 0) {
    return OXI_INVALID_ARGUMENT;
  }
  if (n_tok == 0 || rot_dim == 0) return OXI_OK;
  if (x == nullptr || pos == nullptr || inv_freq == nullptr) return OXI_INVALID_ARGUMENT;
  const int32_t half = rot_dim / 2;
  Parallel(n_tok, 1, [&](int64_t t0, int64_t t1) {
    float* cs = static_cast<float*>(Scratch(kScratchScores, 2 * half * sizeof(float)));
    float* sn = cs + half;
    for (int64_t t = t0; t < t1; ++t) {
      for (int32_t i = 0; i < half; ++i) {
        const float angle = static_cast<float>(pos[t]) * inv_freq[i];
        cs[i] = std::cos(angle);
        sn[i] = std::sin(angle);
      }
      for (int32_t h = 0; h < n_heads; ++h) {
        float* v = x + (t * n_heads + h) * head_dim;
        for (int32_t i = 0; i < half; ++i) {
          const float a = v[i], b = v[i + half];
          v[i] = a * cs[i] - b * sn[i];
          v[i + half] = b * cs[i] + a * sn[i];
        }
      }
    }
  });
  return OXI_OK;
}

void SoftmaxRow(float* x, int64_t n, float scale) {
  float mx = -std::numeric_limits<float>::infinity();
  for (int64_t i = 0; i < n; ++i) {
    x[i] *= scale;
    mx = std::max(mx, x[i]);
  }
  if (std::isinf(mx) && mx < 0) {  // all -inf: uniform is torch's NaN; give zeros
    for (int64_t i = 0; i < n; ++i) x[i] = 0.0f;
    return;
  }
  for (int64_t i = 0; i < n; ++i) x[i] -= mx;
  ExpInPlace(x, n);
  float sum = 0.0f;
  for (int64_t i = 0; i < n; ++i) sum += x[i];
  const float inv = 1.0f / sum;
  for (int64_t i = 0; i < n; ++i) x[i] *= inv;
}

int32_t Softmax(void*, float* x, int64_t rows, int64_t cols, float scale) {
  if (rows < 0 || cols <= 0) return OXI_INVALID_ARGUMENT;
  if (rows == 0) return OXI_OK;
  if (x == nullptr) return OXI_INVALID_ARGUMENT;
  Parallel(rows, std::max<int64_t>(1, 16384 / cols), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) SoftmaxRow(x + r * cols, cols, scale);
  });
  return OXI_OK;
}

// ===================== element-wise =====================

constexpr int64_t kElemGrain = 32768;

float UnaryRef(oxi_unary_op op, float v) {
  switch (op) {
    case OXI_UNARY_GELU_TANH: {
      const float c = 0.7978845608028654f;  // sqrt(2/pi)
      return 0.5f * v * (1.0f + std::tanh(c * (v + 0.044715f * v * v * v)));
    }
    case OXI_UNARY_SILU:
      return v / (1.0f + std::exp(-v));
    case OXI_UNARY_SIGMOID:
      return 1.0f / (1.0f + std::exp(-v));
    case OXI_UNARY_SOFTPLUS:
      return v > 20.0f ? v : std::log1p(std::exp(v));
    case OXI_UNARY_EXP:
      return std::exp(v);
    case OXI_UNARY_TANH:
      return std::tanh(v);
    case OXI_UNARY_GELU_ERF:
      return 0.5f * v * (1.0f + std::erf(v * 0.7071067811865476f));
  }
  return 0.0f;
}

void UnarySpan(oxi_unary_op op, const float* x, int64_t n, float* out) {
  int64_t i = 0;
#if OXI_KERNELS_X86
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 zero = _mm256_setzero_ps();
  switch (op) {
    case OXI_UNARY_GELU_TANH:
      for (; i + 8 <= n; i += 8) {
        // 0.5x(1 + tanh(u)) = x / (1 + exp(-2u)), without cancellation.
        const __m256 v = _mm256_loadu_ps(x + i);
        const __m256 v3 = _mm256_mul_ps(_mm256_mul_ps(v, v), v);
        const __m256 u = _mm256_mul_ps(_mm256_set1_ps(-2.0f * 0.7978845608028654f),
                                       _mm256_fmadd_ps(_mm256_set1_ps(0.044715f), v3, v));
        _mm256_storeu_ps(out + i, _mm256_div_ps(v, _mm256_add_ps(one, Exp8(u))));
      }
      break;
    case OXI_UNARY_SILU:
      for (; i + 8 <= n; i += 8) {
        const __m256 v = _mm256_loadu_ps(x + i);
        _mm256_storeu_ps(out + i,
                         _mm256_div_ps(v, _mm256_add_ps(one, Exp8(_mm256_sub_ps(zero, v)))));
      }
      break;
    case OXI_UNARY_SIGMOID:
      for (; i + 8 <= n; i += 8) {
        const __m256 v = _mm256_loadu_ps(x + i);
        _mm256_storeu_ps(out + i,
                         _mm256_div_ps(one, _mm256_add_ps(one, Exp8(_mm256_sub_ps(zero, v)))));
      }
      break;
    case OXI_UNARY_EXP:
      for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, Exp8(_mm256_loadu_ps(x + i)));
      break;
    case OXI_UNARY_TANH:
      for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, Tanh8(_mm256_loadu_ps(x + i)));
      break;
    case OXI_UNARY_GELU_ERF:
      for (; i + 8 <= n; i += 8) {
        const __m256 v = _mm256_loadu_ps(x + i);
        const __m256 e = Erf8(_mm256_mul_ps(v, _mm256_set1_ps(0.7071067811865476f)));
        _mm256_storeu_ps(
            out + i, _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), v), _mm256_add_ps(one, e)));
      }
      break;
    default:
      break;
  }
#endif
  for (; i < n; ++i) out[i] = UnaryRef(op, x[i]);
}

int32_t Unary(void*, oxi_unary_op op, const float* x, int64_t n, float* out) {
  if (op < OXI_UNARY_GELU_TANH || op > OXI_UNARY_GELU_ERF) return OXI_UNIMPLEMENTED;
  if (n < 0) return OXI_INVALID_ARGUMENT;
  if (n == 0) return OXI_OK;
  if (x == nullptr || out == nullptr) return OXI_INVALID_ARGUMENT;
  Parallel(n, kElemGrain, [&](int64_t b, int64_t e) { UnarySpan(op, x + b, e - b, out + b); });
  return OXI_OK;
}

template <typename F>
void BinarySpan(const float* a, const float* b, int64_t nb, int64_t begin, int64_t end, float* out,
                F f) {
  int64_t i = begin;
  while (i < end) {
    const int64_t off = i % nb;
    const int64_t len = std::min(end - i, nb - off);
    const float* ai = a + i;
    const float* bi = b + off;
    float* oi = out + i;
    for (int64_t j = 0; j < len; ++j) oi[j] = f(ai[j], bi[j]);
    i += len;
  }
}

int32_t Binary(void*, oxi_binary_op op, const float* a, const float* b, int64_t n, int64_t nb,
               float* out) {
  if (op < OXI_BINARY_ADD || op > OXI_BINARY_DIV) return OXI_UNIMPLEMENTED;
  if (n < 0 || nb <= 0 || (n > 0 && n % nb != 0)) return OXI_INVALID_ARGUMENT;
  if (n == 0) return OXI_OK;
  if (a == nullptr || b == nullptr || out == nullptr) return OXI_INVALID_ARGUMENT;
  Parallel(n, kElemGrain, [&](int64_t s, int64_t e) {
    switch (op) {
      case OXI_BINARY_ADD:
        BinarySpan(a, b, nb, s, e, out, [](float u, float v) { return u + v; });
        break;
      case OXI_BINARY_SUB:
        BinarySpan(a, b, nb, s, e, out, [](float u, float v) { return u - v; });
        break;
      case OXI_BINARY_MUL:
        BinarySpan(a, b, nb, s, e, out, [](float u, float v) { return u * v; });
        break;
      case OXI_BINARY_DIV:
        BinarySpan(a, b, nb, s, e, out, [](float u, float v) { return u / v; });
        break;
    }
  });
  return OXI_OK;
}

int32_t Scale(void*, const float* x, int64_t n, float s, float b, float* out) {
  if (n < 0) return OXI_INVALID_ARGUMENT;
  if (n == 0) return OXI_OK;
  if (x == nullptr || out == nullptr) return OXI_INVALID_ARGUMENT;
  Parallel(n, kElemGrain, [&](int64_t s0, int64_t s1) {
    for (int64_t i = s0; i < s1; ++i) out[i] = x[i] * s + b;
  });
  return OXI_OK;
}

// ===================== attention =====================

void Axpy(float a, const float* x, int64_t n, float* y) {
  int64_t i = 0;
#if OXI_KERNELS_X86
  const __m256 av = _mm256_set1_ps(a);
  for (; i + 8 <= n; i += 8) {
    _mm256_storeu_ps(y + i, _mm256_fmadd_ps(av, _mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i)));
  }
#endif
  for (; i < n; ++i) y[i] += a * x[i];
}

// out[g * ldo] = dot(q + g * ldq, k) for g < nq: K rows are read once for all
// the query heads that share them.
void MultiDot(const float* q, int64_t ldq, int32_t nq, const float* k, int64_t n, float* out,
              int64_t ldo) {
  int32_t g = 0;
#if OXI_KERNELS_X86
  for (; g + 4 <= nq; g += 4) {
    __m256 acc[4];
    for (int r = 0; r < 4; ++r) acc[r] = _mm256_setzero_ps();
    int64_t d = 0;
    for (; d + 8 <= n; d += 8) {
      const __m256 kv = _mm256_loadu_ps(k + d);
#pragma GCC unroll 4
      for (int r = 0; r < 4; ++r) {
        acc[r] = _mm256_fmadd_ps(_mm256_loadu_ps(q + (g + r) * ldq + d), kv, acc[r]);
      }
    }
    for (int r = 0; r < 4; ++r) {
      float s = Hsum(acc[r]);
      for (int64_t e = d; e < n; ++e) s += q[(g + r) * ldq + e] * k[e];
      out[(g + r) * ldo] = s;
    }
  }
#endif
  for (; g < nq; ++g) out[g * ldo] = Dot(q + g * ldq, k, n);
}

// o[g][:] = sum_j p[g * ldp + j] * v[vis[j] * vs + :] for g < ng, with the
// output held in registers across all slots (x86), so V is read once per
// group and nothing is stored per slot.
void WeightedRows(const float* p, int64_t ldp, int32_t ng, const int32_t* vis, int64_t n_vis,
                  const float* v, int64_t vs, int32_t vd, float* o) {
  int32_t g = 0;
#if OXI_KERNELS_X86
  for (; g + 4 <= ng; g += 4) {
    int32_t d = 0;
    for (; d + 16 <= vd; d += 16) {
      __m256 acc[4][2];
      for (int r = 0; r < 4; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
      for (int64_t j = 0; j < n_vis; ++j) {
        const float* vr = v + vis[j] * vs + d;
        const __m256 v0 = _mm256_loadu_ps(vr), v1 = _mm256_loadu_ps(vr + 8);
#pragma GCC unroll 4
        for (int r = 0; r < 4; ++r) {
          const __m256 e = _mm256_broadcast_ss(p + (g + r) * ldp + j);
          acc[r][0] = _mm256_fmadd_ps(e, v0, acc[r][0]);
          acc[r][1] = _mm256_fmadd_ps(e, v1, acc[r][1]);
        }
      }
      for (int r = 0; r < 4; ++r) {
        _mm256_storeu_ps(o + (g + r) * vd + d, acc[r][0]);
        _mm256_storeu_ps(o + (g + r) * vd + d + 8, acc[r][1]);
      }
    }
    for (int64_t j = 0; j < n_vis && d < vd; ++j) {
      for (int r = 0; r < 4; ++r) {
        const float e = p[(g + r) * ldp + j];
        for (int32_t c = d; c < vd; ++c) o[(g + r) * vd + c] += e * v[vis[j] * vs + c];
      }
    }
  }
#endif
  for (; g < ng; ++g) {
    for (int64_t j = 0; j < n_vis; ++j) Axpy(p[g * ldp + j], v + vis[j] * vs, vd, o + g * vd);
  }
}

int32_t Attention(void*, const oxi_attention_params* p) {
  if (p == nullptr || !OXI_HAS_FIELD(p, oxi_attention_params, window)) return OXI_INVALID_ARGUMENT;
  const int64_t n_q = p->n_q, n_kv = p->n_kv;
  const int32_t nh = p->n_heads, nkvh = p->n_kv_heads, hd = p->head_dim, vd = p->v_head_dim;
  if (n_q < 0 || n_kv < 0 || nh <= 0 || nkvh <= 0 || hd <= 0 || vd <= 0 || nh % nkvh != 0) {
    return OXI_INVALID_ARGUMENT;
  }
  if (n_q == 0) return OXI_OK;
  if (p->q == nullptr || p->out == nullptr || p->q_pos == nullptr ||
      (n_kv > 0 && (p->k == nullptr || p->v == nullptr || p->kv_pos == nullptr))) {
    return OXI_INVALID_ARGUMENT;
  }
  int64_t ks = static_cast<int64_t>(nkvh) * hd, vs = static_cast<int64_t>(nkvh) * vd;
  if (OXI_HAS_FIELD(p, oxi_attention_params, v_row_stride)) {
    if (p->k_row_stride < 0 || p->v_row_stride < 0) return OXI_INVALID_ARGUMENT;
    if (p->k_row_stride > 0) ks = p->k_row_stride;
    if (p->v_row_stride > 0) vs = p->v_row_stride;
  }
  const int32_t group = nh / nkvh;
  const float scale = p->scale, softcap = p->softcap;
  // The query heads that share a KV head are processed together, so each K
  // and V row is read once per group rather than once per head (GQA). Groups
  // are split when there would be too few work items for the pool (decode
  // with one KV head).
  const int64_t threads =
      g_host != nullptr && g_host->num_threads != nullptr ? g_host->num_threads() : 1;
  int32_t split = 1;
  while (n_q * nkvh * split < threads && split < group) split *= 2;
  const int32_t gs = (group + split - 1) / split;
  const int64_t items = n_q * nkvh * split;
  Parallel(items, 1, [&](int64_t w0, int64_t w1) {
    // Scores [gs][n_kv], then the visible slots' indices.
    float* sc =
        static_cast<float*>(Scratch(kScratchScores, (gs * n_kv + n_kv + 16) * sizeof(float)));
    int32_t* vis = reinterpret_cast<int32_t*>(sc + gs * n_kv + 8);
    for (int64_t w = w0; w < w1; ++w) {
      const int64_t t = w / (nkvh * split);
      const int32_t kvh = static_cast<int32_t>(w / split % nkvh);
      const int32_t h0 = kvh * group + static_cast<int32_t>(w % split) * gs;
      const int32_t nhg = std::min(gs, kvh * group + group - h0);
      if (nhg <= 0) continue;
      const int32_t qp = p->q_pos[t];
      const float* qg = p->q + (t * nh + h0) * hd;  // nhg consecutive heads
      float* og = p->out + (t * nh + h0) * vd;
      for (int64_t e = 0; e < static_cast<int64_t>(nhg) * vd; ++e) og[e] = 0.0f;
      int64_t n_vis = 0;
      for (int64_t i = 0; i < n_kv; ++i) {
        const int32_t kp = p->kv_pos[i];
        if (kp >= 0 && (!p->causal || kp <= qp) &&
            (p->window <= 0 || static_cast<int64_t>(qp) - kp < p->window)) {
          vis[n_vis++] = static_cast<int32_t>(i);
        }
      }
      if (n_vis == 0) continue;
      // Scores, compacted to the visible slots: sc[g][j] for slot vis[j].
      for (int64_t j = 0; j < n_vis; ++j) {
        const float* kr = p->k + vis[j] * ks + static_cast<int64_t>(kvh) * hd;
        MultiDot(qg, hd, nhg, kr, hd, sc + j, n_kv);
      }
      for (int32_t g = 0; g < nhg; ++g) {
        float* e = sc + g * n_kv;
        float mx = -std::numeric_limits<float>::infinity();
        for (int64_t j = 0; j < n_vis; ++j) {
          float s = scale * e[j];
          if (softcap > 0.0f) s = softcap * std::tanh(s / softcap);
          e[j] = s;
          mx = std::max(mx, s);
        }
        for (int64_t j = 0; j < n_vis; ++j) e[j] -= mx;
        ExpInPlace(e, n_vis);
        float sum = 0.0f;
        for (int64_t j = 0; j < n_vis; ++j) sum += e[j];
        const float inv = 1.0f / sum;
        for (int64_t j = 0; j < n_vis; ++j) e[j] *= inv;
      }
      WeightedRows(sc, n_kv, nhg, vis, n_vis, p->v + static_cast<int64_t>(kvh) * vd, vs, vd, og);
    }
  });
  return OXI_OK;
}

}  // namespace

const oxi_backend_iface* GetInterface(const oxi_host_services* host) {
  // Only the fields this file uses, each checked against the host's size.
  static oxi_host_services services;
  static oxi_backend_iface iface;
  std::memset(&services, 0, sizeof services);
  if (host != nullptr) {
    services.struct_size = sizeof services;
    if (OXI_HAS_FIELD(host, oxi_host_services, parallel_for)) {
      services.parallel_for = host->parallel_for;
    }
    if (OXI_HAS_FIELD(host, oxi_host_services, num_threads)) {
      services.num_threads = host->num_threads;
    }
    g_host = &services;
  }
  iface.struct_size = sizeof iface;
  iface.self = nullptr;
  iface.device_name = "cpu";
  iface.matmul = &Matmul;
  iface.convert = &Convert;
  iface.get_rows = &GetRows;
  iface.rms_norm = &RmsNorm;
  iface.rope = &Rope;
  iface.softmax = &Softmax;
  iface.unary = &Unary;
  iface.binary = &Binary;
  iface.scale = &Scale;
  iface.attention = &Attention;
  iface.matmul_weight_dtype = &MatmulWeightDtype;
  return &iface;
}

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer
