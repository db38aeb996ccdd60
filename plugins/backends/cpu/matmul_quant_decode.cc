// Decode on Q8_0 / Q4_0 weights (plain rows, or the _X8 forms through
// matmul_x8.cc): integer block dots against the quantised activations.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "oxinfer/dtype.h"
#include "plugins/backends/cpu/matmul_kernels.h"
#include "plugins/backends/cpu/rows.h"
#include "plugins/backends/cpu/runtime.h"
#include "plugins/backends/cpu/simd.h"

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {
namespace {

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
#endif  // OXI_KERNELS_X86

}  // namespace

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

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer
