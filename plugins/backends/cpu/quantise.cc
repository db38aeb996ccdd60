// GGUF-exact quantisers of one 32-element block (Q8_0, Q4_0). The x86 paths
// perform the reference's operations eight lanes at a time and are
// bit-exact with it (the tests check every edge the reference has).
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "oxinfer/dtype.h"
#include "plugins/backends/cpu/rows.h"
#include "plugins/backends/cpu/simd.h"

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {

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

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer
