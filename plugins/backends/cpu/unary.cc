// The element-wise functions of oxi_unary_op over spans, and GLU (f(gate) *
// up) with the same functions in one pass. The x86 paths evaluate 8 lanes
// with Exp8 / Tanh8 / Erf8 (about 1 ulp); tails use the reference below.
#include <cmath>

#include "plugins/backends/cpu/simd.h"
#include "plugins/backends/cpu/vec.h"

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {
namespace {

float UnaryRef(oxi_unary_op op, float v) {
  switch (op) {
    case OXI_UNARY_NONE:
      return v;
    case OXI_UNARY_GELU_TANH: {
      const float c = 0.7978845608028654f;  // sqrt(2/pi)
      return 0.5f * v * (1.0f + std::tanh(c * (v + 0.044715f * v * v * v)));
    }
    case OXI_UNARY_SILU:
      return v / (1.0f + std::exp(-v));
    case OXI_UNARY_SIGMOID:
      return 1.0f / (1.0f + std::exp(-v));
    case OXI_UNARY_SOFTPLUS:
      return v > 20.0f ? v : std::log1p(std::exp(v));
    case OXI_UNARY_EXP:
      return std::exp(v);
    case OXI_UNARY_TANH:
      return std::tanh(v);
    case OXI_UNARY_GELU_ERF:
      return 0.5f * v * (1.0f + std::erf(v * 0.7071067811865476f));
    case OXI_UNARY_QUICK_GELU:
      return v * (1.0f / (1.0f + std::exp(-(v * 1.702f))));
    case OXI_UNARY_RELU:
      return v < 0.0f ? 0.0f : v;
  }
  return 0.0f;
}

#if OXI_KERNELS_X86
// Eight lanes of each function (the operations the models' exactness was
// measured with; GELU-tanh as x / (1 + exp(-2u)), without cancellation).
struct Gelu8 {
  __m256 operator()(__m256 v) const {
    const __m256 v3 = _mm256_mul_ps(_mm256_mul_ps(v, v), v);
    const __m256 u = _mm256_mul_ps(_mm256_set1_ps(-2.0f * 0.7978845608028654f),
                                   _mm256_fmadd_ps(_mm256_set1_ps(0.044715f), v3, v));
    return _mm256_div_ps(v, _mm256_add_ps(_mm256_set1_ps(1.0f), Exp8(u)));
  }
};
struct Silu8 {
  __m256 operator()(__m256 v) const {
    return _mm256_div_ps(
        v, _mm256_add_ps(_mm256_set1_ps(1.0f), Exp8(_mm256_sub_ps(_mm256_setzero_ps(), v))));
  }
};
struct Sigmoid8 {
  __m256 operator()(__m256 v) const {
    const __m256 one = _mm256_set1_ps(1.0f);
    return _mm256_div_ps(one, _mm256_add_ps(one, Exp8(_mm256_sub_ps(_mm256_setzero_ps(), v))));
  }
};
struct Exp8Fn {
  __m256 operator()(__m256 v) const { return Exp8(v); }
};
struct Tanh8Fn {
  __m256 operator()(__m256 v) const { return Tanh8(v); }
};
struct GeluErf8 {
  __m256 operator()(__m256 v) const {
    const __m256 e = Erf8(_mm256_mul_ps(v, _mm256_set1_ps(0.7071067811865476f)));
    return _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), v),
                         _mm256_add_ps(_mm256_set1_ps(1.0f), e));
  }
};
// x * sigmoid(1.702 x), as CLIP's scale-then-sigmoid-then-multiply.
struct QuickGelu8 {
  __m256 operator()(__m256 v) const {
    return _mm256_mul_ps(v, Sigmoid8()(_mm256_mul_ps(v, _mm256_set1_ps(1.702f))));
  }
};
struct Relu8 {  // NaN stays NaN (maxps returns its second operand)
  __m256 operator()(__m256 v) const { return _mm256_max_ps(_mm256_setzero_ps(), v); }
};
struct Identity8 {
  __m256 operator()(__m256 v) const { return v; }
};

// Calls body(F8) with the lane function of fn; false when fn has none.
template <typename Body>
bool WithLanes(oxi_unary_op fn, Body&& body) {
  switch (fn) {
    case OXI_UNARY_NONE:
      body(Identity8());
      return true;
    case OXI_UNARY_GELU_TANH:
      body(Gelu8());
      return true;
    case OXI_UNARY_SILU:
      body(Silu8());
      return true;
    case OXI_UNARY_SIGMOID:
      body(Sigmoid8());
      return true;
    case OXI_UNARY_EXP:
      body(Exp8Fn());
      return true;
    case OXI_UNARY_TANH:
      body(Tanh8Fn());
      return true;
    case OXI_UNARY_GELU_ERF:
      body(GeluErf8());
      return true;
    case OXI_UNARY_QUICK_GELU:
      body(QuickGelu8());
      return true;
    case OXI_UNARY_RELU:
      body(Relu8());
      return true;
    default:
      return false;  // softplus: the reference
  }
}
#endif

}  // namespace

void UnarySpan(oxi_unary_op fn, const float* x, int64_t n, float* out) {
  int64_t i = 0;
#if OXI_KERNELS_X86
  WithLanes(fn, [&](auto f8) {
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, f8(_mm256_loadu_ps(x + i)));
  });
#endif
  for (; i < n; ++i) out[i] = UnaryRef(fn, x[i]);
}

void GluSpan(oxi_unary_op fn, const float* gate, const float* up, int64_t n, float* out) {
  int64_t i = 0;
#if OXI_KERNELS_X86
  WithLanes(fn, [&](auto f8) {
    for (; i + 8 <= n; i += 8) {
      _mm256_storeu_ps(out + i,
                       _mm256_mul_ps(f8(_mm256_loadu_ps(gate + i)), _mm256_loadu_ps(up + i)));
    }
  });
#endif
  for (; i < n; ++i) out[i] = UnaryRef(fn, gate[i]) * up[i];
}

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer
