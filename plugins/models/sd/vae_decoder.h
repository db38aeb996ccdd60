// The decoder half of diffusers' AutoencoderKL: post_quant_conv, conv_in, a
// mid block (ResNet, single-head self-attention over the pixels, ResNet),
// UpDecoderBlock2D stages with nearest 2x upsampling, GroupNorm + SiLU,
// conv_out.
#ifndef OXINFER_PLUGINS_MODELS_SD_VAE_DECODER_H_
#define OXINFER_PLUGINS_MODELS_SD_VAE_DECODER_H_

#include <string>
#include <vector>

#include "oxinfer/sdk/status.hpp"
#include "plugins/models/sd/activations.h"
#include "plugins/models/sd/layers.h"
#include "plugins/models/sd/resnet_block.h"

namespace oxinfer {
namespace sd {

class VaeDecoder {
 public:
  // dir: vae/ with config.json and the weights (matrix_dtype as
  // ComponentWeights::Open's).
  sdk::Status Load(const std::string& dir, const sdk::Compute* cx, oxi_dtype matrix_dtype,
                   bool use_mmap);
  // The two halves of Load, as UNet's: config.json, then the weights, which
  // ReleaseWeights frees again.
  sdk::Status LoadConfig(const std::string& dir);
  sdk::Status LoadWeights(const sdk::Compute* cx, oxi_dtype matrix_dtype, bool use_mmap);
  void ReleaseWeights();
  bool loaded() const { return loaded_; }

  // Latents already divided by scaling_factor: [n][h][w][latent] -> [n][8h][8w][3].
  sdk::StatusOr<Act> Decode(const Net& net, const Act& z) const;

  float scaling_factor() const { return scaling_factor_; }
  int64_t latent_channels() const { return latent_ch_; }
  int64_t upscale() const { return int64_t{1} << (blocks_ - 1); }

 private:
  struct UpBlock {
    std::vector<ResBlock> res;
    bool has_up = false;
    Conv up;
  };
  sdk::StatusOr<Act> MidAttention(const Net& net, const Act& x) const;

  // LoadConfig's.
  std::string dir_;
  int64_t blocks_ = 1, layers_ = 2;
  int32_t groups_ = 32;
  bool loaded_ = false;
  // Declared first, destroyed last: the layers' buffers may point into it.
  sdk::Weights weights_;
  float scaling_factor_ = 0.18215f;
  int64_t latent_ch_ = 4;
  bool has_post_quant_ = true;
  Conv post_quant_, conv_in_, conv_out_;
  ResBlock mid0_, mid1_;
  Norm attn_norm_, norm_out_;
  Linear q_, k_, v_, o_;
  std::vector<UpBlock> up_;
};

}  // namespace sd
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_SD_VAE_DECODER_H_
