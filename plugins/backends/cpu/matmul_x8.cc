// The row-interleaved _X8 kernels (dtype.h): decode, eight weight rows'
// dots in one register from one sequential stream, and the integer prefill
// on Q4_0x8.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "oxinfer/dtype.h"
#include "plugins/backends/cpu/matmul_kernels.h"
#include "plugins/backends/cpu/runtime.h"
#include "plugins/backends/cpu/simd.h"

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {

#if OXI_KERNELS_X86
namespace {

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

}  // namespace

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

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer
