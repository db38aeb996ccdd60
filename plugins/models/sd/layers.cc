#include "plugins/models/sd/layers.h"

#include <cmath>

namespace oxinfer {
namespace sd {
namespace {

std::string Shape(const Act& a) {
  return sdk::StrCat("[", a.n, "][", a.h, "][", a.w, "][", a.c, "]");
}

}  // namespace

sdk::StatusOr<Act> Net::Apply(const Act& x, const Linear& l) const {
  if (x.c != l.in) {
    return sdk::InvalidArgumentError(
        sdk::StrCat("linear of ", l.in, " inputs applied to an activation ", Shape(x)));
  }
  OXI_ASSIGN_OR_RETURN(Act y, New(x.n, x.h, x.w, l.out));
  OXI_RETURN_IF_ERROR(cx_->MatMul(x.t(), l.w, y.t(), l.bias));
  return y;
}

sdk::StatusOr<Act> Net::Convolve(const Act& x, const Conv& conv) const {
  if (x.c != conv.cin) {
    return sdk::InvalidArgumentError(
        sdk::StrCat("convolution of ", conv.cin, " channels applied to an activation ", Shape(x)));
  }
  const int64_t ho = (x.h + 2 * conv.pad - conv.kh) / conv.stride + 1;
  const int64_t wo = (x.w + 2 * conv.pad - conv.kw) / conv.stride + 1;
  OXI_ASSIGN_OR_RETURN(Act y, New(x.n, ho, wo, conv.cout));
  if (conv.pointwise()) {
    OXI_RETURN_IF_ERROR(cx_->MatMul(x.t(), conv.w, y.t(), conv.bias));
    return y;
  }
  oxi_conv2d_args a = sdk::Compute::Conv2dArgs();
  a.x = x.t();
  a.w = conv.w;
  a.bias = conv.bias;
  a.out = y.t();
  a.batch = static_cast<int32_t>(x.n);
  a.height = static_cast<int32_t>(x.h);
  a.width = static_cast<int32_t>(x.w);
  a.kh = static_cast<int32_t>(conv.kh);
  a.kw = static_cast<int32_t>(conv.kw);
  a.stride = static_cast<int32_t>(conv.stride);
  a.pad = static_cast<int32_t>(conv.pad);
  OXI_RETURN_IF_ERROR(cx_->Conv2d(a));
  return y;
}

sdk::Status Net::GroupNormInPlace(Act* x, const Norm& norm, bool silu) const {
  if (x->c != norm.dim || norm.groups <= 0 || x->c % norm.groups != 0) {
    return sdk::InvalidArgumentError(sdk::StrCat("group norm of ", norm.dim, " channels in ",
                                                 norm.groups, " groups applied to ", Shape(*x)));
  }
  return cx_->GroupNorm(x->t(), norm.gamma, norm.beta, x->t(), norm.groups,
                        static_cast<int32_t>(x->n), norm.eps,
                        silu ? OXI_UNARY_SILU : OXI_UNARY_NONE);
}

sdk::StatusOr<Act> Net::GroupNorm(const Act& x, const Norm& norm, bool silu) const {
  if (x.c != norm.dim || norm.groups <= 0 || x.c % norm.groups != 0) {
    return sdk::InvalidArgumentError(sdk::StrCat("group norm of ", norm.dim, " channels in ",
                                                 norm.groups, " groups applied to ", Shape(x)));
  }
  OXI_ASSIGN_OR_RETURN(Act y, New(x.n, x.h, x.w, x.c));
  OXI_RETURN_IF_ERROR(cx_->GroupNorm(x.t(), norm.gamma, norm.beta, y.t(), norm.groups,
                                     static_cast<int32_t>(x.n), norm.eps,
                                     silu ? OXI_UNARY_SILU : OXI_UNARY_NONE));
  return y;
}

sdk::StatusOr<Act> Net::LayerNorm(const Act& x, const Norm& norm) const {
  if (x.c != norm.dim) {
    return sdk::InvalidArgumentError(
        sdk::StrCat("layer norm of width ", norm.dim, " applied to ", Shape(x)));
  }
  OXI_ASSIGN_OR_RETURN(Act y, New(x.n, x.h, x.w, x.c));
  OXI_RETURN_IF_ERROR(cx_->LayerNorm(x.t(), norm.gamma, norm.beta, y.t(), norm.eps));
  return y;
}

sdk::StatusOr<Act> Net::Attention(const Act& q, const Act& k, const Act& v, int64_t heads,
                                  bool causal) const {
  if (heads <= 0 || q.c % heads != 0 || k.c != q.c || v.c != q.c || k.n != q.n || v.n != q.n ||
      k.pixels() != v.pixels()) {
    return sdk::InvalidArgumentError(sdk::StrCat("attention with ", heads, " heads of q ", Shape(q),
                                                 ", k ", Shape(k), ", v ", Shape(v)));
  }
  const int64_t head_dim = q.c / heads;
  OXI_ASSIGN_OR_RETURN(Act out, New(q.n, q.h, q.w, q.c));
  oxi_attention_args a = sdk::Compute::AttentionArgs();
  a.q = q.t();
  a.k = k.t();
  a.v = v.t();
  a.out = out.t();
  a.n_heads = a.n_kv_heads = static_cast<int32_t>(heads);
  a.head_dim = a.v_head_dim = static_cast<int32_t>(head_dim);
  a.scale = 1.f / std::sqrt(static_cast<float>(head_dim));
  a.causal = causal ? 1 : 0;
  a.batch = static_cast<int32_t>(q.n);
  OXI_RETURN_IF_ERROR(cx_->Attention(a));
  return out;
}

sdk::StatusOr<Act> Net::Geglu(const Act& f) const {
  if (f.c % 2 != 0) {
    return sdk::InvalidArgumentError(sdk::StrCat("GEGLU of an odd width: ", Shape(f)));
  }
  const int64_t inner = f.c / 2;
  OXI_ASSIGN_OR_RETURN(Act y, New(f.n, f.h, f.w, inner));
  OXI_RETURN_IF_ERROR(
      cx_->Glu(OXI_UNARY_GELU_ERF, f.t().Cols(inner, inner), f.t().Cols(0, inner), y.t()));
  return y;
}

sdk::Status Net::UnaryInPlace(oxi_unary_op fn, Act* x) const {
  return cx_->Unary(fn, x->t(), x->t());
}

sdk::StatusOr<Act> Net::Unary(oxi_unary_op fn, const Act& x) const {
  OXI_ASSIGN_OR_RETURN(Act y, New(x.n, x.h, x.w, x.c));
  OXI_RETURN_IF_ERROR(cx_->Unary(fn, x.t(), y.t()));
  return y;
}

sdk::Status Net::AddInPlace(Act* a, const Act& b) const {
  if (a->rows() != b.rows() || a->c != b.c) {
    return sdk::InvalidArgumentError(sdk::StrCat("adding ", Shape(b), " to ", Shape(*a)));
  }
  return cx_->Add(a->t(), b.t(), a->t());
}

sdk::Status Net::AddPerImage(Act* a, const Act& rows) const {
  if (rows.rows() != a->n || rows.c != a->c) {
    return sdk::InvalidArgumentError(
        sdk::StrCat("adding per-image rows ", Shape(rows), " to ", Shape(*a)));
  }
  for (int64_t b = 0; b < a->n; ++b) {
    const sdk::Tensor image = a->Image(b);
    OXI_RETURN_IF_ERROR(cx_->Add(image, rows.t().Row(b), image));
  }
  return sdk::OkStatus();
}

sdk::StatusOr<Act> Net::Upsample2x(const Act& x) const {
  OXI_ASSIGN_OR_RETURN(Act y, New(x.n, x.h * 2, x.w * 2, x.c));
  OXI_RETURN_IF_ERROR(cx_->UpsampleNearest(x.t(), y.t(), static_cast<int32_t>(x.n),
                                           static_cast<int32_t>(x.h), static_cast<int32_t>(x.w),
                                           2));
  return y;
}

sdk::StatusOr<Act> Net::UpsampleNearestTo(const Act& x, int64_t out_h, int64_t out_w) const {
  const auto fits = [](int64_t in, int64_t out) { return out == 2 * in || out == 2 * in - 1; };
  if (!fits(x.h, out_h) || !fits(x.w, out_w)) {
    return sdk::InvalidArgumentError(sdk::StrCat("nearest upsampling of ", Shape(x), " to ", out_h,
                                                 "x", out_w, ": only to 2n or 2n - 1 per side"));
  }
  OXI_ASSIGN_OR_RETURN(Act up, Upsample2x(x));
  if (out_h == up.h && out_w == up.w) return up;
  // For out = 2n - 1, floor(dst * n / (2n - 1)) = floor(dst / 2) for every
  // dst < 2n - 1 (the excess dst / (4n - 2) stays below 1/2), so it is the 2x
  // upsampling without its last row or column: one strided copy per image.
  OXI_ASSIGN_OR_RETURN(Act y, New(x.n, out_h, out_w, x.c));
  for (int64_t b = 0; b < x.n; ++b) {
    const sdk::Tensor src =
        up.Image(b).Reshape(up.h, up.w * up.c).Rows(0, out_h).Cols(0, out_w * up.c);
    OXI_RETURN_IF_ERROR(cx_->Copy(src, y.Image(b).Reshape(out_h, out_w * y.c)));
  }
  return y;
}

sdk::StatusOr<Act> Net::Concat(const Act& a, const Act& b) const {
  if (a.n != b.n || a.h != b.h || a.w != b.w) {
    return sdk::InvalidArgumentError(sdk::StrCat("concatenating ", Shape(a), " and ", Shape(b)));
  }
  OXI_ASSIGN_OR_RETURN(Act y, New(a.n, a.h, a.w, a.c + b.c));
  OXI_RETURN_IF_ERROR(cx_->Concat(a.t(), b.t(), y.t()));
  return y;
}

}  // namespace sd
}  // namespace oxinfer
