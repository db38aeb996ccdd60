#include "plugins/models/sd/spatial_transformer.h"

#include <utility>

namespace oxinfer {
namespace sd {

sdk::Status SpatialTransformer::Load(const ComponentWeights& w, const std::string& p, int64_t heads,
                                     int32_t groups) {
  heads_ = heads;
  OXI_ASSIGN_OR_RETURN(norm_, w.LoadNorm(p + "norm", 1e-6f, groups));
  OXI_ASSIGN_OR_RETURN(proj_in_, w.LoadLinear(p + "proj_in"));
  OXI_ASSIGN_OR_RETURN(proj_out_, w.LoadLinear(p + "proj_out"));
  for (int j = 0; w.Has(sdk::StrCat(p, "transformer_blocks.", j, ".norm1.weight")); ++j) {
    const std::string q = sdk::StrCat(p, "transformer_blocks.", j, ".");
    Block b;
    OXI_ASSIGN_OR_RETURN(b.norm1, w.LoadNorm(q + "norm1", 1e-5f));
    OXI_ASSIGN_OR_RETURN(b.norm2, w.LoadNorm(q + "norm2", 1e-5f));
    OXI_ASSIGN_OR_RETURN(b.norm3, w.LoadNorm(q + "norm3", 1e-5f));
    OXI_ASSIGN_OR_RETURN(b.q1, w.LoadLinear(q + "attn1.to_q"));
    OXI_ASSIGN_OR_RETURN(b.k1, w.LoadLinear(q + "attn1.to_k"));
    OXI_ASSIGN_OR_RETURN(b.v1, w.LoadLinear(q + "attn1.to_v"));
    OXI_ASSIGN_OR_RETURN(b.out1, w.LoadLinear(q + "attn1.to_out.0"));
    OXI_ASSIGN_OR_RETURN(b.q2, w.LoadLinear(q + "attn2.to_q"));
    OXI_ASSIGN_OR_RETURN(b.k2, w.LoadLinear(q + "attn2.to_k"));
    OXI_ASSIGN_OR_RETURN(b.v2, w.LoadLinear(q + "attn2.to_v"));
    OXI_ASSIGN_OR_RETURN(b.out2, w.LoadLinear(q + "attn2.to_out.0"));
    OXI_ASSIGN_OR_RETURN(b.ff_in, w.LoadLinear(q + "ff.net.0.proj"));
    OXI_ASSIGN_OR_RETURN(b.ff_out, w.LoadLinear(q + "ff.net.2"));
    if (heads <= 0 || b.q1.out % heads != 0 || b.ff_out.in * 2 != b.ff_in.out ||
        b.q1.out != proj_in_.out) {
      return sdk::InvalidArgumentError(
          sdk::StrCat(w.source(), ": ", q, "*: inconsistent shapes for ", heads, " heads"));
    }
    blocks_.push_back(std::move(b));
  }
  if (blocks_.empty()) {
    return sdk::InvalidArgumentError(
        sdk::StrCat(w.source(), ": ", p, "transformer_blocks.0 missing"));
  }
  return sdk::OkStatus();
}

sdk::Status SpatialTransformer::BlockForward(const Net& net, const Block& b, const Act& ctx,
                                             Act* hs) const {
  {  // self-attention
    OXI_ASSIGN_OR_RETURN(Act n, net.LayerNorm(*hs, b.norm1));
    OXI_ASSIGN_OR_RETURN(Act q, net.Apply(n, b.q1));
    OXI_ASSIGN_OR_RETURN(Act k, net.Apply(n, b.k1));
    OXI_ASSIGN_OR_RETURN(Act v, net.Apply(n, b.v1));
    n.Release();
    OXI_ASSIGN_OR_RETURN(Act a, net.Attention(q, k, v, heads_, /*causal=*/false));
    q.Release(), k.Release(), v.Release();
    OXI_ASSIGN_OR_RETURN(Act o, net.Apply(a, b.out1));
    OXI_RETURN_IF_ERROR(net.AddInPlace(hs, o));
  }
  {  // cross-attention on the text
    OXI_ASSIGN_OR_RETURN(Act n, net.LayerNorm(*hs, b.norm2));
    OXI_ASSIGN_OR_RETURN(Act q, net.Apply(n, b.q2));
    n.Release();
    OXI_ASSIGN_OR_RETURN(Act k, net.Apply(ctx, b.k2));
    OXI_ASSIGN_OR_RETURN(Act v, net.Apply(ctx, b.v2));
    OXI_ASSIGN_OR_RETURN(Act a, net.Attention(q, k, v, heads_, /*causal=*/false));
    q.Release();
    OXI_ASSIGN_OR_RETURN(Act o, net.Apply(a, b.out2));
    OXI_RETURN_IF_ERROR(net.AddInPlace(hs, o));
  }
  {  // GEGLU feed-forward
    OXI_ASSIGN_OR_RETURN(Act n, net.LayerNorm(*hs, b.norm3));
    OXI_ASSIGN_OR_RETURN(Act f, net.Apply(n, b.ff_in));
    n.Release();
    OXI_ASSIGN_OR_RETURN(Act g, net.Geglu(f));
    f.Release();
    OXI_ASSIGN_OR_RETURN(Act o, net.Apply(g, b.ff_out));
    OXI_RETURN_IF_ERROR(net.AddInPlace(hs, o));
  }
  return sdk::OkStatus();
}

sdk::StatusOr<Act> SpatialTransformer::Forward(const Net& net, const Act& x, const Act& ctx) const {
  Act hs;
  {
    OXI_ASSIGN_OR_RETURN(Act g, net.GroupNorm(x, norm_, /*silu=*/false));
    OXI_ASSIGN_OR_RETURN(hs, net.Apply(g, proj_in_));
  }
  // Pixels as one token sequence per image.
  hs.SetImageShape(1, x.h * x.w);
  for (const Block& b : blocks_) OXI_RETURN_IF_ERROR(BlockForward(net, b, ctx, &hs));
  OXI_ASSIGN_OR_RETURN(Act out, net.Apply(hs, proj_out_));
  out.SetImageShape(x.h, x.w);
  OXI_RETURN_IF_ERROR(net.AddInPlace(&out, x));
  return out;
}

}  // namespace sd
}  // namespace oxinfer
