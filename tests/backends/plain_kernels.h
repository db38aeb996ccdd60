// The plain loops the test backends share (tests/backends/arena and
// plain_cpu): the same code on both sides, so a composition of the two must
// give bit-identical results to either alone. Each takes an operand's bytes
// (`p`, where the backend keeps them) and its layout (the oxi_tensor).
#ifndef OXINFER_TESTS_BACKENDS_PLAIN_KERNELS_H_
#define OXINFER_TESTS_BACKENDS_PLAIN_KERNELS_H_

#include <cmath>
#include <cstdint>
#include <cstring>

#include "oxinfer/dtype.h"
#include "oxinfer/ops.h"

namespace oxinfer {
namespace test_backends {

// Element c of a row of a float type (F32, BF16, F16) or of Q8_0 blocks.
inline float Element(int32_t dtype, const uint8_t* row, int64_t c) {
  uint16_t h;
  switch (dtype) {
    case OXI_DTYPE_F32: {
      float f;
      std::memcpy(&f, row + 4 * c, 4);
      return f;
    }
    case OXI_DTYPE_BF16:
      std::memcpy(&h, row + 2 * c, 2);
      return oxi_bf16_to_f32(h);
    case OXI_DTYPE_F16:
      std::memcpy(&h, row + 2 * c, 2);
      return oxi_f16_to_f32(h);
    case OXI_DTYPE_Q8_0: {
      oxi_block_q8_0 b;
      std::memcpy(&b, row + (c / OXI_QK) * sizeof b, sizeof b);
      return oxi_f16_to_f32(b.d) * b.qs[c % OXI_QK];
    }
    default:
      return NAN;
  }
}

inline const uint8_t* Row(const oxi_tensor& t, const uint8_t* p, int64_t r) {
  return p + r * oxi_tensor_stride(&t);
}
inline float* RowF32(const oxi_tensor& t, uint8_t* p, int64_t r) {
  return reinterpret_cast<float*>(p + r * oxi_tensor_stride(&t));
}

// y = x w^T (+ bias), weights of any type Element reads.
inline void Matmul(const oxi_matmul_args& a, const uint8_t* x, const uint8_t* w,
                   const uint8_t* bias, uint8_t* y) {
  for (int64_t m = 0; m < a.x.rows; ++m) {
    const float* xr = reinterpret_cast<const float*>(Row(a.x, x, m));
    float* yr = RowF32(a.y, y, m);
    for (int64_t n = 0; n < a.w.rows; ++n) {
      const uint8_t* wr = Row(a.w, w, n);
      float sum = 0.0f;
      for (int64_t k = 0; k < a.x.cols; ++k) sum += xr[k] * Element(a.w.dtype, wr, k);
      if (bias != nullptr) sum += reinterpret_cast<const float*>(bias)[n];
      yr[n] = sum;
    }
  }
}

// out = x / sqrt(mean(x^2) + eps) * (weight + offset); in place allowed.
inline void RmsNorm(const oxi_rms_norm_args& a, const uint8_t* x, const uint8_t* weight,
                    uint8_t* out) {
  const int64_t dim = a.x.cols;
  for (int64_t r = 0; r < a.x.rows; ++r) {
    const float* xr = reinterpret_cast<const float*>(Row(a.x, x, r));
    float* o = RowF32(a.out, out, r);
    float sum = 0.0f;
    for (int64_t c = 0; c < dim; ++c) sum += xr[c] * xr[c];
    const float inv = 1.0f / std::sqrt(sum / static_cast<float>(dim) + a.eps);
    for (int64_t c = 0; c < dim; ++c) {
      const float w =
          weight != nullptr ? reinterpret_cast<const float*>(weight)[c] + a.weight_offset : 1.0f;
      o[c] = xr[c] * inv * w;
    }
  }
}

}  // namespace test_backends
}  // namespace oxinfer

#endif  // OXINFER_TESTS_BACKENDS_PLAIN_KERNELS_H_
