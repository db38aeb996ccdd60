#include "plugins/models/gemma4/gemma4_clipped_linear.h"

#include <cmath>
#include <vector>

namespace oxinfer {
namespace gemma4 {
namespace {

sdk::StatusOr<float> Scalar(const sdk::Weights& file, const std::string& name, float fallback) {
  if (!file.Has(name)) return fallback;
  OXI_ASSIGN_OR_RETURN(std::vector<float> v, file.GetFloats(name, {}));
  return v[0];
}

bool Bounded(float lo, float hi) { return std::isfinite(lo) || std::isfinite(hi); }

}  // namespace

sdk::StatusOr<ClippedLinear> LoadClippedLinear(const sdk::Compute& cx, const sdk::Weights& file,
                                               const std::string& name, int64_t n, int64_t k,
                                               bool clipped, oxi_dtype dtype) {
  ClippedLinear l;
  OXI_ASSIGN_OR_RETURN(const oxi_weight_tensor* t,
                       file.Get(name + ".linear.weight", {n, k}, /*float_only=*/false));
  OXI_ASSIGN_OR_RETURN(l.w, cx.LoadWeight(file, t, n, k, dtype));
  if (clipped) {
    OXI_ASSIGN_OR_RETURN(l.in_lo, Scalar(file, name + ".input_min", l.in_lo));
    OXI_ASSIGN_OR_RETURN(l.in_hi, Scalar(file, name + ".input_max", l.in_hi));
    OXI_ASSIGN_OR_RETURN(l.out_lo, Scalar(file, name + ".output_min", l.out_lo));
    OXI_ASSIGN_OR_RETURN(l.out_hi, Scalar(file, name + ".output_max", l.out_hi));
  }
  return l;
}

sdk::Status ApplyClippedLinear(const sdk::Compute& cx, sdk::Scratch* scratch,
                               const ClippedLinear& l, const sdk::Tensor& x, const sdk::Tensor& y) {
  sdk::Tensor in = x;
  if (Bounded(l.in_lo, l.in_hi)) {
    OXI_ASSIGN_OR_RETURN(in, scratch->F32(x.rows, x.cols));
    OXI_RETURN_IF_ERROR(cx.Clamp(x, in, l.in_lo, l.in_hi));
  }
  OXI_RETURN_IF_ERROR(cx.MatMul(in, l.w, y));
  if (Bounded(l.out_lo, l.out_hi)) OXI_RETURN_IF_ERROR(cx.Clamp(y, y, l.out_lo, l.out_hi));
  return sdk::OkStatus();
}

}  // namespace gemma4
}  // namespace oxinfer
