// diffusers' UNet2DConditionModel as Stable Diffusion 1.x / 2.x use it:
// sinusoidal timestep embedding, ResNet blocks, spatial transformers
// (self-attention, cross-attention on the text, GEGLU feed-forward),
// stride-2 downsampling, nearest upsampling and skip connections.
// Activations are channels-last: [batch][h][w][c].
#ifndef OXINFER_PLUGINS_MODELS_SD_UNET_H_
#define OXINFER_PLUGINS_MODELS_SD_UNET_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "plugins/models/sd/sd_ops.h"

namespace oxinfer {
namespace sd {

class WeightStore;

// ResnetBlock2D (time embedding optional: the VAE's have none).
struct ResBlock {
  Norm n1, n2;
  Conv c1, c2;
  bool has_temb = false;
  Linear temb;
  bool has_shortcut = false;
  Conv shortcut;
  absl::Status Load(const WeightStore& w, const std::string& p, int64_t groups, float eps);
  // temb: [x.n][temb_dim] or null.
  absl::Status Forward(const Ops& ops, const Act& x, const Act* temb, Act* out) const;
};

class UNet {
 public:
  // weight_dtype: as WeightStore::Open's storage.
  static absl::StatusOr<UNet> Load(const std::string& dir, oxi_dtype weight_dtype = OXI_DTYPE_F32);

  // sample [n][h][w][in_channels], one timestep for all, ctx [n][1][len][cross_dim].
  absl::StatusOr<Act> Forward(const Ops& ops, const Act& sample, float timestep,
                              const Act& ctx) const;

  int64_t in_channels() const { return in_ch_; }
  int64_t cross_dim() const { return cross_dim_; }
  int64_t downscale() const { return int64_t{1} << (down_.size() - 1); }

 private:
  struct TBlock {
    Norm n1, n2, n3;
    Linear q1, k1, v1, o1, q2, k2, v2, o2, ff1, ff2;
  };
  struct Transformer {
    Norm gn;
    Linear proj_in, proj_out;
    std::vector<TBlock> blocks;
    int64_t heads = 1;
  };
  struct Block {
    std::vector<ResBlock> res;
    std::vector<Transformer> attn;
    bool has_sampler = false;
    Conv sampler;
  };
  absl::Status LoadTransformer(const WeightStore& w, const std::string& p, int64_t heads,
                               Transformer* t) const;
  absl::Status TransformerForward(const Ops& ops, const Transformer& t, const Act& x,
                                  const Act& ctx, Act* out) const;

  int64_t in_ch_ = 4, out_ch_ = 4, cross_dim_ = 768, groups_ = 32, c0_ = 320;
  float eps_ = 1e-5f;
  bool flip_sin_to_cos_ = true;
  double freq_shift_ = 0;
  Conv conv_in_, conv_out_;
  Linear time1_, time2_;
  Norm norm_out_;
  std::vector<Block> down_, up_;
  ResBlock mid_res0_, mid_res1_;
  Transformer mid_attn_;
};

}  // namespace sd
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_SD_UNET_H_
