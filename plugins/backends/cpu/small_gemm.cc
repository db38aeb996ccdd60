// Register-tiled: R rows of A broadcast against V vectors of 8 columns of B,
// R * V accumulators held across the whole k loop (x86); the portable build
// runs the same i-k-j order in plain loops, which its compiler vectorises.
#include "plugins/backends/cpu/small_gemm.h"

#include <algorithm>

#include "plugins/backends/cpu/simd.h"

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {
namespace {

#if OXI_KERNELS_X86
// AVX-512 builds have 32 vector registers: taller tiles.
#if defined(__AVX512F__)
constexpr int kRows = 8;
#else
constexpr int kRows = 4;
#endif

template <int R, int V>
inline void Tile(int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb, float* c,
                 int64_t ldc, bool accumulate) {
  __m256 acc[R][V];
  for (int r = 0; r < R; ++r) {
    for (int v = 0; v < V; ++v) {
      acc[r][v] = accumulate ? _mm256_loadu_ps(c + r * ldc + 8 * v) : _mm256_setzero_ps();
    }
  }
  for (int64_t p = 0; p < k; ++p) {
    __m256 bv[V];
    for (int v = 0; v < V; ++v) bv[v] = _mm256_loadu_ps(b + p * ldb + 8 * v);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m256 av = _mm256_broadcast_ss(a + r * lda + p);
      for (int v = 0; v < V; ++v) acc[r][v] = _mm256_fmadd_ps(av, bv[v], acc[r][v]);
    }
  }
  for (int r = 0; r < R; ++r) {
    for (int v = 0; v < V; ++v) _mm256_storeu_ps(c + r * ldc + 8 * v, acc[r][v]);
  }
}

// Columns j0.. of rows i0..i0+R: 16-wide, then 8-wide, then scalar.
template <int R>
void RowBlock(int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb,
              float* c, int64_t ldc, bool accumulate) {
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) Tile<R, 2>(k, a, lda, b + j, ldb, c + j, ldc, accumulate);
  for (; j + 8 <= n; j += 8) Tile<R, 1>(k, a, lda, b + j, ldb, c + j, ldc, accumulate);
  for (int r = 0; r < R; ++r) {
    for (int64_t jj = j; jj < n; ++jj) {
      float s = accumulate ? c[r * ldc + jj] : 0.0f;
      for (int64_t p = 0; p < k; ++p) s += a[r * lda + p] * b[p * ldb + jj];
      c[r * ldc + jj] = s;
    }
  }
}

template <int R>
void Rows(int64_t rows, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
          int64_t ldb, float* c, int64_t ldc, bool accumulate) {
  switch (rows) {
    case R:
      RowBlock<R>(n, k, a, lda, b, ldb, c, ldc, accumulate);
      break;
    default:
      if constexpr (R > 1) {
        Rows<R - 1>(rows, n, k, a, lda, b, ldb, c, ldc, accumulate);
      }
      break;
  }
}
#endif  // OXI_KERNELS_X86

}  // namespace

void SmallGemm(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
               int64_t ldb, float* c, int64_t ldc, bool accumulate, int64_t lower) {
  if (m <= 0 || n <= 0) return;
#if OXI_KERNELS_X86
  for (int64_t i = 0; i < m; i += kRows) {
    const int64_t rows = std::min<int64_t>(kRows, m - i);
    const int64_t kk = lower < 0 ? k : std::min(k, i + rows + lower);
    Rows<kRows>(rows, n, std::max<int64_t>(kk, 0), a + i * lda, lda, b, ldb, c + i * ldc, ldc,
                accumulate);
  }
#else
  for (int64_t i = 0; i < m; ++i) {
    float* ci = c + i * ldc;
    if (!accumulate) std::fill(ci, ci + n, 0.0f);
    const int64_t kk = lower < 0 ? k : std::min(k, i + 1 + lower);
    for (int64_t p = 0; p < kk; ++p) {
      const float av = a[i * lda + p];
      const float* bp = b + p * ldb;
      for (int64_t j = 0; j < n; ++j) ci[j] += av * bp[j];
    }
  }
#endif
}

void Transpose(const float* src, int64_t lds, int64_t rows, int64_t cols, float* dst, int64_t ldd) {
  constexpr int64_t kB = 16;
  for (int64_t i0 = 0; i0 < rows; i0 += kB) {
    for (int64_t j0 = 0; j0 < cols; j0 += kB) {
      const int64_t i1 = std::min(rows, i0 + kB), j1 = std::min(cols, j0 + kB);
      for (int64_t i = i0; i < i1; ++i) {
        for (int64_t j = j0; j < j1; ++j) dst[j * ldd + i] = src[i * lds + j];
      }
    }
  }
}

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer
