// SIMD helpers shared by the kernels of one variant. OXI_KERNELS_X86 is set
// for the AVX2+FMA+F16C builds (avx2, and avx512 which recompiles the same
// code for its wider ISA); the portable code is the scalar and NEON build.
// Everything here is inline in the variant's namespace, so variants never
// share a symbol.
#ifndef OXINFER_PLUGINS_BACKENDS_CPU_SIMD_H_
#define OXINFER_PLUGINS_BACKENDS_CPU_SIMD_H_

#include <cstdint>
#include <cstring>
#include <limits>

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#define OXI_KERNELS_X86 1
#include <immintrin.h>
#else
#define OXI_KERNELS_X86 0
#endif

// The cpu-avx512 build (x86-64-v4): 512-bit kernels. Its VNNI / BF16 kernels
// are compiled under `#pragma GCC target` in their own files and run only
// after the host's CPU features were checked (matmul_kernels.h, HostHas).
#if OXI_KERNELS_X86 && defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && \
    defined(__AVX512DQ__)
#define OXI_KERNELS_AVX512 1
#else
#define OXI_KERNELS_AVX512 0
#endif

#ifndef OXI_CPU_NS
#error "OXI_CPU_NS must name the variant (scalar, avx2, avx512, neon)"
#endif

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {

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
inline int32_t Load4(const uint8_t* p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

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
#endif  // OXI_KERNELS_X86

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_BACKENDS_CPU_SIMD_H_
