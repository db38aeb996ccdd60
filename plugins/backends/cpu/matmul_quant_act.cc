// Activations quantised to Q8_0 for the block-weight kernels, in the layouts
// those kernels read (matmul_kernels.h, QuantAct).
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

QuantAct QuantizeActivations(const float* x, int64_t m, int64_t k, oxi_dtype wt) {
  QuantAct a;
  a.m = m;
  a.k = k;
  a.nb = k / OXI_QK;
  a.nbp = (a.nb + 7) / 8 * 8;
  size_t bytes = m * k + 2 * m * a.nbp * 4 + 3 * 64;
#if OXI_KERNELS_X86
  bytes += m * k + m * (a.nb / 2) * 32 + 2 * m * a.nbp * 4 + 4 * 64;
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
    if (wt == OXI_DTYPE_Q8_0_X8) {
      // The VNNI kernels' correction for w + 128: -128 * sum(q) = 16 * nsum.
      a.icorr128 = reinterpret_cast<int32_t*>(take(m * a.nbp * 4));
      for (int64_t i = 0; i < m * a.nbp; ++i) {
        a.icorr128[i] = 16 * static_cast<int32_t>(a.nsum[i]);
      }
    }
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

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer
