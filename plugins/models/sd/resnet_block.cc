#include "plugins/models/sd/resnet_block.h"

#include <utility>

namespace oxinfer {
namespace sd {

sdk::Status ResBlock::Load(const ComponentWeights& w, const std::string& p, int32_t groups,
                           float eps) {
  OXI_ASSIGN_OR_RETURN(norm1, w.LoadNorm(p + "norm1", eps, groups));
  OXI_ASSIGN_OR_RETURN(norm2, w.LoadNorm(p + "norm2", eps, groups));
  OXI_ASSIGN_OR_RETURN(conv1, w.LoadConv(p + "conv1", 1, 1));
  OXI_ASSIGN_OR_RETURN(conv2, w.LoadConv(p + "conv2", 1, 1));
  has_temb = w.Has(p + "time_emb_proj.weight");
  if (has_temb) {
    OXI_ASSIGN_OR_RETURN(temb_proj, w.LoadLinear(p + "time_emb_proj"));
  }
  has_shortcut = w.Has(p + "conv_shortcut.weight");
  if (has_shortcut) {
    OXI_ASSIGN_OR_RETURN(shortcut, w.LoadConv(p + "conv_shortcut", 1, 0));
  }
  if (norm1.dim != conv1.cin || norm2.dim != conv2.cin || conv1.cout != conv2.cin ||
      (has_temb && temb_proj.out != conv1.cout) ||
      (has_shortcut ? shortcut.cin != conv1.cin || shortcut.cout != conv2.cout
                    : conv1.cin != conv2.cout)) {
    return sdk::InvalidArgumentError(
        sdk::StrCat(w.source(), ": ", p, "*: the norms' and convolutions' channels disagree"));
  }
  return sdk::OkStatus();
}

sdk::StatusOr<Act> ResBlock::Second(const Net& net, Act h, const Act* silu_temb) const {
  if (has_temb && silu_temb != nullptr) {
    OXI_ASSIGN_OR_RETURN(Act t, net.Apply(*silu_temb, temb_proj));
    OXI_RETURN_IF_ERROR(net.AddPerImage(&h, t));
  }
  OXI_RETURN_IF_ERROR(net.GroupNormInPlace(&h, norm2, /*silu=*/true));
  return net.Convolve(h, conv2);
}

sdk::StatusOr<Act> ResBlock::Forward(const Net& net, const Act& x, const Act* silu_temb) const {
  Act h;
  {
    OXI_ASSIGN_OR_RETURN(Act g, net.GroupNorm(x, norm1, /*silu=*/true));
    OXI_ASSIGN_OR_RETURN(h, net.Convolve(g, conv1));
  }
  OXI_ASSIGN_OR_RETURN(Act out, Second(net, std::move(h), silu_temb));
  if (has_shortcut) {
    OXI_ASSIGN_OR_RETURN(Act s, net.Convolve(x, shortcut));
    OXI_RETURN_IF_ERROR(net.AddInPlace(&out, s));
  } else {
    OXI_RETURN_IF_ERROR(net.AddInPlace(&out, x));
  }
  return out;
}

sdk::StatusOr<Act> ResBlock::Forward(const Net& net, Act&& x, const Act* silu_temb) const {
  if (!has_shortcut) return Forward(net, static_cast<const Act&>(x), silu_temb);
  OXI_ASSIGN_OR_RETURN(Act s, net.Convolve(x, shortcut));
  OXI_RETURN_IF_ERROR(net.GroupNormInPlace(&x, norm1, /*silu=*/true));
  OXI_ASSIGN_OR_RETURN(Act h, net.Convolve(x, conv1));
  x.Release();
  OXI_ASSIGN_OR_RETURN(Act out, Second(net, std::move(h), silu_temb));
  OXI_RETURN_IF_ERROR(net.AddInPlace(&out, s));
  return out;
}

}  // namespace sd
}  // namespace oxinfer
