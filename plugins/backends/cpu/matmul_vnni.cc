// The integer prefill on _X8 weights with AVX512_VNNI (cpu-avx512 only):
// vpdpbusd multiplies unsigned weight bytes by signed activation bytes and
// adds groups of four into int32 lanes, one instruction where AVX2 needs
// maddubs + madd + add. Two groups of eight weight rows fill the sixteen
// lanes of a zmm, so a broadcast activation dword serves sixteen outputs.
//   Q4_0x8: the nibbles (0..15) are the unsigned side; "- 8" enters as
//           -8 * sum(q) per block (QuantAct::icorr).
//   Q8_0x8: w + 128 (0..255) is the unsigned side; the 128 comes back out as
//           -128 * sum(q) per block (QuantAct::icorr128).
// The integer dots are exact, and they are scaled and summed in the same
// order as the AVX2 kernels (matmul_x8.cc), so the results are the same.
//
// Everything below the pragma may use AVX512_VNNI; it runs only when
// VnniAvailable() (the host's CPU features) said so.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "oxinfer/dtype.h"
#include "plugins/backends/cpu/matmul_kernels.h"
#include "plugins/backends/cpu/runtime.h"
#include "plugins/backends/cpu/simd.h"

#if OXI_KERNELS_AVX512

#pragma GCC push_options
#pragma GCC target("avx512vnni")

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {
namespace {

inline __m512i Bcast4(const int8_t* p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return _mm512_set1_epi32(v);
}

// Two 32-byte pieces, one per group, as the halves of one zmm.
inline __m512i Load2x32(const uint8_t* lo, const uint8_t* hi) {
  return _mm512_inserti64x4(
      _mm512_castsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(lo))),
      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(hi)), 1);
}

// The eight f16 block scales of each group as sixteen f32 lanes.
inline __m512 Scales2(const uint8_t* lo, const uint8_t* hi) {
  const __m256i h = _mm256_inserti128_si256(
      _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(lo))),
      _mm_loadu_si128(reinterpret_cast<const __m128i*>(hi)), 1);
  return _mm512_cvtph_ps(h);
}

// Activation rows i0..i0+M-1 against groups g0 and g1, whose eight outputs
// per row go to y0 and y1 (g1 may repeat g0 for a lone last group: y1 null,
// only the low eight lanes are stored).
template <bool kQ4, int M>
void Tile(const QuantAct& a, int64_t i0, const uint8_t* g0, const uint8_t* g1, float* y0, float* y1,
          int64_t n) {
  constexpr int64_t kSuper = OXI_X8_ROWS * (kQ4 ? sizeof(oxi_block_q4_0) : sizeof(oxi_block_q8_0));
  const int32_t* corr = kQ4 ? a.icorr : a.icorr128;
  const __m512i m4 = _mm512_set1_epi8(0x0f);
  const __m512i bias = _mm512_set1_epi8(static_cast<char>(0x80));
  // Decode from four rows is bound by the arithmetic as much as by the
  // stream (kMultiRowPrefetchBytes); at two rows Q8_0 is stream-bound and
  // prefetching slowed it on Zen 4.
  const bool prefetch = M >= 4 && a.m <= kDecodeMaxM;
  __m512 acc[M];
#pragma GCC unroll 8
  for (int i = 0; i < M; ++i) acc[i] = _mm512_setzero_ps();
  for (int64_t b = 0; b < a.nb; ++b) {
    const uint8_t* s0 = g0 + b * kSuper;
    const uint8_t* s1 = g1 + b * kSuper;
    if (prefetch) {
      for (int64_t line = 0; line < kSuper; line += 64) {
        PrefetchL2(s0 + line + kMultiRowPrefetchBytes);
        PrefetchL2(s1 + line + kMultiRowPrefetchBytes);
      }
    }
    __m512i s32[M];
#pragma GCC unroll 8
    for (int i = 0; i < M; ++i) s32[i] = _mm512_set1_epi32(corr[(i0 + i) * a.nbp + b]);
    if (kQ4) {
#pragma GCC unroll 4
      for (int t = 0; t < 4; ++t) {
        const __m512i raw = Load2x32(s0 + 16 + 32 * t, s1 + 16 + 32 * t);
        const __m512i lo = _mm512_and_si512(raw, m4);
        const __m512i hi = _mm512_and_si512(_mm512_srli_epi16(raw, 4), m4);
#pragma GCC unroll 8
        for (int i = 0; i < M; ++i) {
          const int8_t* q = a.qs + (i0 + i) * a.k + b * OXI_QK + 4 * t;
          s32[i] = _mm512_dpbusd_epi32(s32[i], lo, Bcast4(q));
          s32[i] = _mm512_dpbusd_epi32(s32[i], hi, Bcast4(q + 16));
        }
      }
    } else {
#pragma GCC unroll 8
      for (int t = 0; t < 8; ++t) {
        const __m512i wu = _mm512_xor_si512(Load2x32(s0 + 16 + 32 * t, s1 + 16 + 32 * t), bias);
#pragma GCC unroll 8
        for (int i = 0; i < M; ++i) {
          const int8_t* q = a.qs + (i0 + i) * a.k + b * OXI_QK + 4 * t;
          s32[i] = _mm512_dpbusd_epi32(s32[i], wu, Bcast4(q));
        }
      }
    }
    const __m512 dw = Scales2(s0, s1);
#pragma GCC unroll 8
    for (int i = 0; i < M; ++i) {
      acc[i] = _mm512_fmadd_ps(_mm512_mul_ps(dw, _mm512_set1_ps(a.d[(i0 + i) * a.nbp + b])),
                               _mm512_cvtepi32_ps(s32[i]), acc[i]);
    }
  }
#pragma GCC unroll 8
  for (int i = 0; i < M; ++i) {
    _mm256_storeu_ps(y0 + (i0 + i) * n, _mm512_castps512_ps256(acc[i]));
    if (y1 != nullptr) _mm256_storeu_ps(y1 + (i0 + i) * n, _mm512_extractf32x8_ps(acc[i], 1));
  }
}

template <bool kQ4>
void Rows(const QuantAct& a, int64_t r0, int64_t r1, const uint8_t* g0, const uint8_t* g1,
          float* y0, float* y1, int64_t n) {
  constexpr int kM = 8;
  int64_t i0 = r0;
  for (; i0 + kM <= r1; i0 += kM) Tile<kQ4, kM>(a, i0, g0, g1, y0, y1, n);
  switch (r1 - i0) {
    case 1:
      Tile<kQ4, 1>(a, i0, g0, g1, y0, y1, n);
      break;
    case 2:
      Tile<kQ4, 2>(a, i0, g0, g1, y0, y1, n);
      break;
    case 3:
      Tile<kQ4, 3>(a, i0, g0, g1, y0, y1, n);
      break;
    case 4:
      Tile<kQ4, 4>(a, i0, g0, g1, y0, y1, n);
      break;
    case 5:
      Tile<kQ4, 5>(a, i0, g0, g1, y0, y1, n);
      break;
    case 6:
      Tile<kQ4, 6>(a, i0, g0, g1, y0, y1, n);
      break;
    case 7:
      Tile<kQ4, 7>(a, i0, g0, g1, y0, y1, n);
      break;
    default:
      break;
  }
}

template <bool kQ4>
void Gemm(const QuantAct& a, const uint8_t* w, int64_t row_bytes, int64_t n, float* y) {
  // 64 activation rows (64 x k int8) stay in L2 while a pair of groups is
  // read by eight row tiles in turn.
  constexpr int64_t kRowBlock = 64;
  const int64_t group_bytes = OXI_X8_ROWS * row_bytes;
  const int64_t groups = n / OXI_X8_ROWS;
  // Multi-token decode (speculative verification, m <= kDecodeMaxM) reads
  // each group once, so it is bound by the weight stream: the pair is taken
  // from the two halves of a thread's groups, two sequential streams far
  // apart (adjacent groups end their stream every few KiB; the m = 2..8
  // forwards of the 0.8B ran at 2.5x a one-row step on Zen 4).
  const bool spread = a.m <= kDecodeMaxM;
  Parallel((groups + 1) / 2, 1, [&](int64_t p0, int64_t p1) {
    const int64_t first = 2 * p0, end = std::min(groups, 2 * p1);
    const int64_t half = (end - first + 1) / 2;
    for (int64_t r0 = 0; r0 < a.m; r0 += kRowBlock) {
      const int64_t r1 = std::min(a.m, r0 + kRowBlock);
      for (int64_t t = 0; t < (spread ? half : p1 - p0); ++t) {
        const int64_t g = spread ? first + t : 2 * (p0 + t);
        const int64_t h = spread ? g + half : g + 1;
        const bool pair = h < end;
        const uint8_t* g0 = w + g * group_bytes;
        const uint8_t* g1 = pair ? w + h * group_bytes : g0;
        Rows<kQ4>(a, r0, r1, g0, g1, y + g * OXI_X8_ROWS, pair ? y + h * OXI_X8_ROWS : nullptr, n);
      }
    }
  });
}

}  // namespace

void QuantGemmX8Vnni(const QuantAct& a, const uint8_t* w, oxi_dtype wt, int64_t row_bytes,
                     int64_t n, float* y) {
  if (wt == OXI_DTYPE_Q4_0_X8) {
    Gemm<true>(a, w, row_bytes, n, y);
  } else {
    Gemm<false>(a, w, row_bytes, n, y);
  }
}

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer

#pragma GCC pop_options

#endif  // OXI_KERNELS_AVX512
