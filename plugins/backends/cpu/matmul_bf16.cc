// The bf16 prefill GEMM on vdpbf16ps (AVX512_BF16, cpu-avx512 only), an
// option: it rounds the activations to bf16 (round to nearest even), which
// moves logits by far more than the 1e-4 the exact path keeps (figures in
// docs/performance.md), so it runs only when OXINFER_CPU_BF16_ACTIVATIONS=1
// asks for it, as llama.cpp's bf16 path does without asking. The default
// prefill on bf16 weights stays the exact f32 GEMM (matmul_gemm.cc).
//
// vdpbf16ps adds the two products of a pair of bf16 (consecutive k) into an
// f32 lane: weights are packed as [k/2][32 columns] pairs, one 32-bit pair
// per column, and each activation pair is broadcast, so a 12x32 tile of
// outputs is 24 zmm accumulators (BLIS-style, as matmul_gemm.cc).
//
// Everything below the pragma may use AVX512_BF16; it runs only when
// HostHas(OXI_CPU_AVX512BF16).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "oxinfer/dtype.h"
#include "plugins/backends/cpu/matmul_kernels.h"
#include "plugins/backends/cpu/runtime.h"
#include "plugins/backends/cpu/simd.h"

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {

bool Bf16ActivationsRequested() {
  const char* v = std::getenv("OXINFER_CPU_BF16_ACTIVATIONS");
  return v != nullptr && v[0] != '\0' && std::strcmp(v, "0") != 0;
}

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer

#if OXI_KERNELS_AVX512

#pragma GCC push_options
#pragma GCC target("avx512bf16")

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {
namespace {

constexpr int64_t kMR = 12;   // activation rows per register tile
constexpr int64_t kNR = 32;   // output columns per register tile (2 zmm)
constexpr int64_t kKC = 128;  // k pairs per packed block: a 16 KiB panel in L1
constexpr int64_t kNC = 128;  // columns per packed block (64 KiB, in L2)

inline __m512bh AsBh(__m512i v) { return reinterpret_cast<__m512bh&>(v); }

template <int RM>
void Micro(const uint32_t* xb, int64_t ldx, const uint32_t* bp, int64_t kc, float* y, int64_t ldy,
           int64_t cols, bool accumulate) {
  __m512 c0[RM], c1[RM];
#pragma GCC unroll 12
  for (int i = 0; i < RM; ++i) c0[i] = c1[i] = _mm512_setzero_ps();
  for (int64_t p = 0; p < kc; ++p) {
    const __m512bh b0 = AsBh(_mm512_load_si512(bp + p * kNR));
    const __m512bh b1 = AsBh(_mm512_load_si512(bp + p * kNR + 16));
#pragma GCC unroll 12
    for (int i = 0; i < RM; ++i) {
      const __m512bh a = AsBh(_mm512_set1_epi32(static_cast<int>(xb[i * ldx + p])));
      c0[i] = _mm512_dpbf16_ps(c0[i], a, b0);
      c1[i] = _mm512_dpbf16_ps(c1[i], a, b1);
    }
  }
  const __mmask16 m0 = cols >= 16 ? 0xffff : static_cast<__mmask16>((1u << cols) - 1);
  const __mmask16 m1 = cols >= 32   ? 0xffff
                       : cols <= 16 ? 0
                                    : static_cast<__mmask16>((1u << (cols - 16)) - 1);
#pragma GCC unroll 12
  for (int i = 0; i < RM; ++i) {
    float* yi = y + i * ldy;
    if (accumulate) {
      c0[i] = _mm512_add_ps(c0[i], _mm512_maskz_loadu_ps(m0, yi));
      c1[i] = _mm512_add_ps(c1[i], _mm512_maskz_loadu_ps(m1, yi + 16));
    }
    _mm512_mask_storeu_ps(yi, m0, c0[i]);
    _mm512_mask_storeu_ps(yi + 16, m1, c1[i]);
  }
}

using MicroFn = void (*)(const uint32_t*, int64_t, const uint32_t*, int64_t, float*, int64_t,
                         int64_t, bool);

// Pair p (elements 2p, 2p+1; the second 0 past k) of a bf16 row.
inline uint32_t Pair(const uint16_t* row, int64_t k, int64_t p) {
  const uint32_t lo = row[2 * p];
  const uint32_t hi = 2 * p + 1 < k ? row[2 * p + 1] : 0;
  return lo | (hi << 16);
}

}  // namespace

void GemmBf16Dot(const float* x, int64_t m, int64_t k, const uint8_t* w, int64_t row_bytes,
                 int64_t n, float* y) {
  static constexpr MicroFn kMicro[kMR] = {Micro<1>, Micro<2>,  Micro<3>,  Micro<4>,
                                          Micro<5>, Micro<6>,  Micro<7>,  Micro<8>,
                                          Micro<9>, Micro<10>, Micro<11>, Micro<12>};
  const int64_t kp = (k + 1) / 2;
  // The activations as bf16 pairs, rounded to nearest even.
  uint32_t* xb = static_cast<uint32_t*>(Scratch(kScratchActF32, m * kp * sizeof(uint32_t)));
  Parallel(m, 16, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      const float* xi = x + i * k;
      uint16_t* o = reinterpret_cast<uint16_t*>(xb + i * kp);
      int64_t p = 0;
      for (; p + 16 <= k; p += 16) {
        const __m256bh h = _mm512_cvtneps_pbh(_mm512_loadu_ps(xi + p));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(o + p), reinterpret_cast<const __m256i&>(h));
      }
      if (p < k) {
        const __mmask16 mk = static_cast<__mmask16>((1u << (k - p)) - 1);
        const __m256bh h = _mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(mk, xi + p));
        alignas(32) uint16_t tmp[16];
        _mm256_store_si256(reinterpret_cast<__m256i*>(tmp), reinterpret_cast<const __m256i&>(h));
        for (int64_t q = p; q < 2 * kp; ++q) o[q] = q < k ? tmp[q - p] : 0;
      }
    }
  });
  const int64_t blocks = (n + kNC - 1) / kNC;
  Parallel(blocks, 1, [&](int64_t b0, int64_t b1) {
    uint32_t* packed =
        static_cast<uint32_t*>(Scratch(kScratchWeights, kNC * kKC * sizeof(uint32_t) + 64));
    packed =
        reinterpret_cast<uint32_t*>((reinterpret_cast<uintptr_t>(packed) + 63) & ~uintptr_t{63});
    for (int64_t blk = b0; blk < b1; ++blk) {
      const int64_t j0 = blk * kNC;
      const int64_t nc = std::min(kNC, n - j0);
      const int64_t panels = (nc + kNR - 1) / kNR;
      for (int64_t p0 = 0; p0 < kp; p0 += kKC) {
        const int64_t kc = std::min(kKC, kp - p0);
        for (int64_t pn = 0; pn < panels; ++pn) {
          uint32_t* pp = packed + pn * kKC * kNR;
          const int64_t cols = std::min(kNR, nc - pn * kNR);
          for (int64_t c = 0; c < kNR; ++c) {
            if (c >= cols) {
              for (int64_t p = 0; p < kc; ++p) pp[p * kNR + c] = 0;
              continue;
            }
            const uint8_t* row = w + (j0 + pn * kNR + c) * row_bytes;
            if (k % 2 == 0) {
              for (int64_t p = 0; p < kc; ++p) {
                uint32_t v;
                std::memcpy(&v, row + 4 * (p0 + p), 4);
                pp[p * kNR + c] = v;
              }
            } else {
              const uint16_t* r16 = reinterpret_cast<const uint16_t*>(row);
              for (int64_t p = 0; p < kc; ++p) pp[p * kNR + c] = Pair(r16, k, p0 + p);
            }
          }
        }
        for (int64_t i = 0; i < m; i += kMR) {
          const int64_t rm = std::min(kMR, m - i);
          for (int64_t pn = 0; pn < panels; ++pn) {
            const int64_t cols = std::min(kNR, nc - pn * kNR);
            kMicro[rm - 1](xb + i * kp + p0, kp, packed + pn * kKC * kNR, kc,
                           y + i * n + j0 + pn * kNR, n, cols, p0 > 0);
          }
        }
      }
    }
  });
}

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer

#pragma GCC pop_options

#endif  // OXI_KERNELS_AVX512
