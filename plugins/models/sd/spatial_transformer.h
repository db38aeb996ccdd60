// diffusers' Transformer2DModel as the SD UNet uses it: GroupNorm, proj_in
// (1x1 conv or linear: the same on channels-last pixels), BasicTransformer
// blocks (self-attention, cross-attention on the text, GEGLU feed-forward,
// each pre-LayerNorm with a residual), proj_out, plus the input.
#ifndef OXINFER_PLUGINS_MODELS_SD_SPATIAL_TRANSFORMER_H_
#define OXINFER_PLUGINS_MODELS_SD_SPATIAL_TRANSFORMER_H_

#include <string>
#include <vector>

#include "oxinfer/sdk/status.hpp"
#include "plugins/models/sd/activations.h"
#include "plugins/models/sd/layers.h"
#include "plugins/models/sd/sd_weights.h"

namespace oxinfer {
namespace sd {

class SpatialTransformer {
 public:
  // p: the module's prefix ("down_blocks.0.attentions.1.").
  sdk::Status Load(const ComponentWeights& w, const std::string& p, int64_t heads, int32_t groups);
  // x [n][h][w][c], ctx [n][1][len][cross_dim].
  sdk::StatusOr<Act> Forward(const Net& net, const Act& x, const Act& ctx) const;

 private:
  struct Block {
    Norm norm1, norm2, norm3;
    Linear q1, k1, v1, out1, q2, k2, v2, out2, ff_in, ff_out;
  };
  sdk::Status BlockForward(const Net& net, const Block& b, const Act& ctx, Act* hs) const;

  int64_t heads_ = 1;
  Norm norm_;
  Linear proj_in_, proj_out_;
  std::vector<Block> blocks_;
};

}  // namespace sd
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_SD_SPATIAL_TRANSFORMER_H_
