// Decode on f32 / bf16 / f16 weights (x86): M activation rows against R
// weight rows per tile, streaming W once.
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

#if OXI_KERNELS_AVX512
// bf16 weights on 512-bit vectors: sixteen weights widened to f32 (zero-extend,
// shift left 16) against sixteen activations per FMA. One order of
// accumulation for every (activation row, weight row) pair whatever the tile,
// so m rows equal m one-row calls bit for bit (speculative verification
// relies on it); the tiles differ in how many weight rows share a pass over
// the activations.
template <int M, int R>
void Bf16TileZ(const float* x, int64_t k, const uint8_t* w, int64_t row_bytes, float* y, int64_t n,
               int64_t y_stride = 1) {
  const int64_t k16 = k / 16 * 16;
  __m512 acc[M][R];
#pragma GCC unroll 8
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) acc[i][r] = _mm512_setzero_ps();
  }
  for (int64_t p = 0; p < k16; p += 16) {
    if (M > 1 && (p & 31) == 0) {  // one line (32 weights) per stream
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) PrefetchL2(w + r * row_bytes + 2 * p + kMultiRowPrefetchBytes);
    }
    __m512 wv[R];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(
          reinterpret_cast<const uint16_t*>(w + r * row_bytes) + p));
      wv[r] = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
    }
#pragma GCC unroll 8
    for (int i = 0; i < M; ++i) {
      const __m512 xv = _mm512_loadu_ps(x + i * k + p);
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) acc[i][r] = _mm512_fmadd_ps(xv, wv[r], acc[i][r]);
    }
  }
#pragma GCC unroll 8
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      float s = _mm512_reduce_add_ps(acc[i][r]);
      const uint16_t* wr = reinterpret_cast<const uint16_t*>(w + r * row_bytes);
      for (int64_t q = k16; q < k; ++q) s += x[i * k + q] * oxi_bf16_to_f32(wr[q]);
      y[i * n + r * y_stride] = s;
    }
  }
}

// All M activation rows against the R weight rows at w (`stride` apart):
// beyond four activation rows, a second pass over the same weight rows (now
// in L1) for the rest. 4 x 4 tiles ran at the FMA peak in a standalone test,
// 5..8 x 3 tiles at 60-70% of it.
template <int M, int R>
void Bf16AllRowsZ(const float* x, int64_t k, const uint8_t* w, int64_t stride, float* y, int64_t n,
                  int64_t y_stride) {
  Bf16TileZ<(M < 4 ? M : 4), R>(x, k, w, stride, y, n, y_stride);
  if constexpr (M > 4) Bf16TileZ<M - 4, R>(x + 4 * k, k, w, stride, y + 4 * n, n, y_stride);
}

// M activation rows against R streams from R equal parts of [j0, j1) (see
// Bf16RowsSpread): also for M > 1, where adjacent rows (a 2 KiB row ends its
// stream every few cache lines) left the m = 2..8 verification forwards of
// the 0.8B at 1.8x a one-row step's matmul time on Zen 4.
template <int M>
void Bf16RowsSpreadZ(const float* x, int64_t k, const uint8_t* w, int64_t row_bytes, int64_t n,
                     float* y, int64_t j0, int64_t j1) {
  constexpr int R = 4;
  const int64_t part = (j1 - j0) / R;
  for (int64_t j = j0; j < j0 + part; ++j) {
    Bf16AllRowsZ<M, R>(x, k, w + j * row_bytes, part * row_bytes, y + j, n, part);
  }
  for (int64_t j = j0 + R * part; j < j1; ++j) {
    Bf16AllRowsZ<M, 1>(x, k, w + j * row_bytes, row_bytes, y + j, n, 1);
  }
}

void Bf16DecodeZ(const float* x, int64_t m, int64_t k, const uint8_t* w, int64_t row_bytes,
                 int64_t n, float* y) {
  Parallel(n, kDecodeGrain, [&](int64_t j0, int64_t j1) {
    switch (m) {
      case 1:
        Bf16RowsSpreadZ<1>(x, k, w, row_bytes, n, y, j0, j1);
        break;
      case 2:
        Bf16RowsSpreadZ<2>(x, k, w, row_bytes, n, y, j0, j1);
        break;
      case 3:
        Bf16RowsSpreadZ<3>(x, k, w, row_bytes, n, y, j0, j1);
        break;
      case 4:
        Bf16RowsSpreadZ<4>(x, k, w, row_bytes, n, y, j0, j1);
        break;
      case 5:
        Bf16RowsSpreadZ<5>(x, k, w, row_bytes, n, y, j0, j1);
        break;
      case 6:
        Bf16RowsSpreadZ<6>(x, k, w, row_bytes, n, y, j0, j1);
        break;
      case 7:
        Bf16RowsSpreadZ<7>(x, k, w, row_bytes, n, y, j0, j1);
        break;
      default:
        Bf16RowsSpreadZ<8>(x, k, w, row_bytes, n, y, j0, j1);
        break;
    }
  });
}
#endif  // OXI_KERNELS_AVX512

void Bf16DecodeX86(const float* x, int64_t m, int64_t k, const uint8_t* w, int64_t row_bytes,
                   int64_t n, float* y) {
#if OXI_KERNELS_AVX512
  Bf16DecodeZ(x, m, k, w, row_bytes, n, y);
#else
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
#endif
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

}  // namespace

void FloatDecodeX86(const float* x, int64_t m, int64_t k, const uint8_t* w, oxi_dtype wt,
                    int64_t row_bytes, int64_t n, float* y) {
  switch (wt) {
    case OXI_DTYPE_F32:
      DenseDecodeX86<OXI_DTYPE_F32>(x, m, k, w, row_bytes, n, y);
      break;
    case OXI_DTYPE_BF16:
      Bf16DecodeX86(x, m, k, w, row_bytes, n, y);
      break;
    default:
      DenseDecodeX86<OXI_DTYPE_F16>(x, m, k, w, row_bytes, n, y);
      break;
  }
}
#endif  // OXI_KERNELS_X86

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer
