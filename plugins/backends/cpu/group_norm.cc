// Group norm of channels-last images (+ SiLU): the statistics of each
// (image, group) in double, as the SD plugin computed them, then each row
// normalised, scaled and activated in one vectorised pass.
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

int32_t CheckGroupNorm(const Report& r, const oxi_op& op) {
  const auto& a = As<oxi_group_norm_args>(op);
  OXI_CPU_TRY(ExpectF32(r, "x", a.x));
  OXI_CPU_TRY(ExpectF32(r, "out", a.out));
  OXI_CPU_TRY(ExpectSameShape(r, "out", a.out, "x", a.x));
  const int64_t c = a.x.cols;
  if (a.groups <= 0 || c % a.groups != 0) {
    return r.Fail(OXI_INVALID_ARGUMENT, "%d groups do not divide %lld channels", a.groups,
                  static_cast<long long>(c));
  }
  const int64_t batch = a.batch == 0 ? 1 : a.batch;
  if (batch < 0 || a.x.rows % batch != 0) {
    return r.Fail(OXI_INVALID_ARGUMENT, "batch %d does not divide %lld rows", a.batch,
                  static_cast<long long>(a.x.rows));
  }
  if (a.act != OXI_UNARY_NONE && a.act != OXI_UNARY_SILU) {
    return r.Fail(OXI_INVALID_ARGUMENT, "act %d: group_norm applies NONE or SILU", a.act);
  }
  for (const auto* w : {&a.gamma, &a.beta}) {
    if (!Present(*w)) continue;
    const char* name = w == &a.gamma ? "gamma" : "beta";
    OXI_CPU_TRY(ExpectF32(r, name, *w));
    OXI_CPU_TRY(ExpectShape(r, name, *w, 1, c, "one value per channel"));
  }
  return OXI_OK;
}

int32_t RunGroupNorm(const Report&, const oxi_op& op) {
  const auto& a = As<oxi_group_norm_args>(op);
  const int64_t c = a.x.cols, g = a.groups, cg = c / g;
  const int64_t batch = a.batch == 0 ? 1 : a.batch;
  const int64_t hw = a.x.rows / batch;
  if (c == 0 || hw == 0) return OXI_OK;
  // mean and 1/std per (image, group), then per channel for the row pass.
  float* stats = static_cast<float*>(Scratch(kScratchOp, 2 * batch * g * sizeof(float)));
  float* mean = stats;
  float* rstd = stats + batch * g;
  const double eps = a.eps;
  Parallel(batch * g, 1, [&](int64_t j0, int64_t j1) {
    for (int64_t job = j0; job < j1; ++job) {
      const int64_t b = job / g, grp = job % g;
      double sum = 0;
      for (int64_t p = 0; p < hw; ++p) {
        const float* px = RowPtr<const float>(a.x, b * hw + p) + grp * cg;
        for (int64_t i = 0; i < cg; ++i) sum += px[i];
      }
      const double m = sum / static_cast<double>(hw * cg);
      double var = 0;
      for (int64_t p = 0; p < hw; ++p) {
        const float* px = RowPtr<const float>(a.x, b * hw + p) + grp * cg;
        for (int64_t i = 0; i < cg; ++i) {
          const double d = px[i] - m;
          var += d * d;
        }
      }
      var /= static_cast<double>(hw * cg);
      rstd[job] = static_cast<float>(1.0 / std::sqrt(var + eps));
      mean[job] = static_cast<float>(m);
    }
  });
  const float* gamma = Present(a.gamma) ? RowPtr<const float>(a.gamma, 0) : nullptr;
  const float* beta = Present(a.beta) ? RowPtr<const float>(a.beta, 0) : nullptr;
  const bool silu = a.act == OXI_UNARY_SILU;
  Parallel(a.x.rows, std::max<int64_t>(1, 8192 / c), [&](int64_t r0, int64_t r1) {
    for (int64_t row = r0; row < r1; ++row) {
      const float* in = RowPtr<const float>(a.x, row);
      float* out = RowPtr<float>(a.out, row);
      const float* bm = mean + row / hw * g;
      const float* br = rstd + row / hw * g;
      for (int64_t grp = 0; grp < g; ++grp) {
        const float fm = bm[grp], rs = br[grp];
        for (int64_t i = grp * cg; i < (grp + 1) * cg; ++i) {
          float v = (in[i] - fm) * rs;
          if (gamma != nullptr) v *= gamma[i];
          if (beta != nullptr) v += beta[i];
          out[i] = v;
        }
      }
      if (silu) UnarySpan(OXI_UNARY_SILU, out, c, out);
    }
  });
  return OXI_OK;
}

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer
