// The prefill GEMM on f32 activations (x86), and the reference float matmul.
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

#if OXI_KERNELS_X86
namespace {

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

}  // namespace

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
              WeightRowToF32(w, wt, k, row_bytes, j0 + pn * kNR + c, k0, kc, dst);
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

// Each weight row converted to f32 once, then dotted with every activation row.
void DenseRef(const float* x, int64_t m, int64_t k, const uint8_t* w, oxi_dtype wt,
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

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer
