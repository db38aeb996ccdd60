// Row norms: rms_norm, l2_norm (Qwen 3.5's, statistics in double) and
// layer_norm (the SD text encoder's, statistics in double), on strided views.
#include <algorithm>
#include <cmath>

#include "plugins/backends/cpu/buffer.h"
#include "plugins/backends/cpu/op_table.h"
#include "plugins/backends/cpu/runtime.h"
#include "plugins/backends/cpu/validate.h"
#include "plugins/backends/cpu/vec.h"

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {
namespace {

int32_t CheckRowNorm(const Report& r, const oxi_tensor& x, const oxi_tensor& out) {
  OXI_CPU_TRY(ExpectF32(r, "x", x));
  OXI_CPU_TRY(ExpectF32(r, "out", out));
  return ExpectSameShape(r, "out", out, "x", x);
}

int32_t CheckWeight(const Report& r, const char* name, const oxi_tensor& w, int64_t dim) {
  if (!Present(w)) return OXI_OK;
  OXI_CPU_TRY(ExpectF32(r, name, w));
  return ExpectShape(r, name, w, 1, dim, "one value per column of x");
}

int64_t RowGrain(int64_t dim) { return std::max<int64_t>(1, 16384 / std::max<int64_t>(dim, 1)); }

}  // namespace

int32_t CheckRmsNorm(const Report& r, const oxi_op& op) {
  const auto& a = As<oxi_rms_norm_args>(op);
  OXI_CPU_TRY(CheckRowNorm(r, a.x, a.out));
  return CheckWeight(r, "weight", a.weight, a.x.cols);
}

int32_t RunRmsNorm(const Report&, const oxi_op& op) {
  const auto& a = As<oxi_rms_norm_args>(op);
  const int64_t dim = a.x.cols;
  if (dim == 0) return OXI_OK;
  const float* weight = Present(a.weight) ? RowPtr<const float>(a.weight, 0) : nullptr;
  const float offset = a.weight_offset, eps = a.eps;
  Parallel(a.x.rows, RowGrain(dim), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const float* xr = RowPtr<const float>(a.x, r);
      float* o = RowPtr<float>(a.out, r);
      const float ss = Dot(xr, xr, dim);
      const float inv = 1.0f / std::sqrt(ss / static_cast<float>(dim) + eps);
      if (weight == nullptr) {
        for (int64_t i = 0; i < dim; ++i) o[i] = xr[i] * inv;
      } else {
        for (int64_t i = 0; i < dim; ++i) o[i] = xr[i] * inv * (weight[i] + offset);
      }
    }
  });
  return OXI_OK;
}

int32_t CheckL2Norm(const Report& r, const oxi_op& op) {
  const auto& a = As<oxi_l2_norm_args>(op);
  return CheckRowNorm(r, a.x, a.out);
}

int32_t RunL2Norm(const Report&, const oxi_op& op) {
  const auto& a = As<oxi_l2_norm_args>(op);
  const int64_t dim = a.x.cols;
  const float eps = a.eps, scale = a.scale;
  Parallel(a.x.rows, RowGrain(dim), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const float* xr = RowPtr<const float>(a.x, r);
      float* o = RowPtr<float>(a.out, r);
      double ss = 0.0;
      for (int64_t i = 0; i < dim; ++i) ss += static_cast<double>(xr[i]) * xr[i];
      const float inv = 1.0f / std::sqrt(static_cast<float>(ss) + eps);
      for (int64_t i = 0; i < dim; ++i) o[i] = xr[i] * inv * scale;
    }
  });
  return OXI_OK;
}

int32_t CheckLayerNorm(const Report& r, const oxi_op& op) {
  const auto& a = As<oxi_layer_norm_args>(op);
  OXI_CPU_TRY(CheckRowNorm(r, a.x, a.out));
  OXI_CPU_TRY(CheckWeight(r, "gamma", a.gamma, a.x.cols));
  return CheckWeight(r, "beta", a.beta, a.x.cols);
}

int32_t RunLayerNorm(const Report&, const oxi_op& op) {
  const auto& a = As<oxi_layer_norm_args>(op);
  const int64_t dim = a.x.cols;
  if (dim == 0) return OXI_OK;
  const float* gamma = Present(a.gamma) ? RowPtr<const float>(a.gamma, 0) : nullptr;
  const float* beta = Present(a.beta) ? RowPtr<const float>(a.beta, 0) : nullptr;
  const float eps = a.eps;
  Parallel(a.x.rows, RowGrain(dim), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const float* in = RowPtr<const float>(a.x, r);
      float* out = RowPtr<float>(a.out, r);
      double sum = 0;
      for (int64_t i = 0; i < dim; ++i) sum += in[i];
      const double mean = sum / static_cast<double>(dim);
      double var = 0;
      for (int64_t i = 0; i < dim; ++i) var += (in[i] - mean) * (in[i] - mean);
      var /= static_cast<double>(dim);
      const float rstd = static_cast<float>(1.0 / std::sqrt(var + eps));
      const float fmean = static_cast<float>(mean);
      for (int64_t i = 0; i < dim; ++i) {
        float v = (in[i] - fmean) * rstd;
        if (gamma != nullptr) v *= gamma[i];
        out[i] = v + (beta != nullptr ? beta[i] : 0.0f);
      }
    }
  });
  return OXI_OK;
}

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer
