// diffusers' ResnetBlock2D (UNet and VAE): GroupNorm + SiLU, 3x3 conv, the
// time embedding's projection added per image (UNet only), GroupNorm + SiLU,
// 3x3 conv, plus the input (through a 1x1 conv when the channels change).
#ifndef OXINFER_PLUGINS_MODELS_SD_RESNET_BLOCK_H_
#define OXINFER_PLUGINS_MODELS_SD_RESNET_BLOCK_H_

#include <string>

#include "oxinfer/sdk/status.hpp"
#include "plugins/models/sd/activations.h"
#include "plugins/models/sd/layers.h"
#include "plugins/models/sd/sd_weights.h"

namespace oxinfer {
namespace sd {

struct ResBlock {
  Norm norm1, norm2;
  Conv conv1, conv2;
  bool has_temb = false;
  Linear temb_proj;
  bool has_shortcut = false;
  Conv shortcut;

  // p: the block's prefix ("down_blocks.0.resnets.1.").
  sdk::Status Load(const ComponentWeights& w, const std::string& p, int32_t groups, float eps);
  // silu_temb: SiLU of the time embedding, [x.n][1][1][temb_dim], or null.
  sdk::StatusOr<Act> Forward(const Net& net, const Act& x, const Act* silu_temb) const;
  // The same, consuming x: with a shortcut convolution the first group norm
  // then runs in place (one activation less at the peak of a VAE decode).
  sdk::StatusOr<Act> Forward(const Net& net, Act&& x, const Act* silu_temb) const;

 private:
  // conv1's output h -> conv2(silu(norm2(h + temb_proj(silu_temb)))).
  sdk::StatusOr<Act> Second(const Net& net, Act h, const Act* silu_temb) const;
};

}  // namespace sd
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_SD_RESNET_BLOCK_H_
