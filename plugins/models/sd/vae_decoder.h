// The decoder half of diffusers' AutoencoderKL: post_quant_conv, conv_in, a
// mid block (ResNet, single-head self-attention, ResNet), UpDecoderBlock2D
// stages with nearest 2x upsampling, GroupNorm + SiLU + conv_out.
#ifndef OXINFER_PLUGINS_MODELS_SD_VAE_DECODER_H_
#define OXINFER_PLUGINS_MODELS_SD_VAE_DECODER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "plugins/models/sd/sd_ops.h"
#include "plugins/models/sd/unet.h"

namespace oxinfer {
namespace sd {

class VaeDecoder {
 public:
  // weight_dtype: as WeightStore::Open's storage.
  static absl::StatusOr<VaeDecoder> Load(const std::string& dir,
                                         oxi_dtype weight_dtype = OXI_DTYPE_F32);

  // Latents already divided by scaling_factor: [n][h][w][latent] -> [n][8h][8w][3].
  absl::StatusOr<Act> Decode(const Ops& ops, const Act& z) const;

  float scaling_factor() const { return scaling_factor_; }
  int64_t latent_channels() const { return latent_ch_; }
  int64_t upscale() const { return int64_t{1} << (up_.size() - 1); }

 private:
  struct UpBlock {
    std::vector<ResBlock> res;
    bool has_up = false;
    Conv up;
  };
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
