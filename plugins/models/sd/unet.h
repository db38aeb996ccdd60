// diffusers' UNet2DConditionModel as Stable Diffusion 1.x / 2.x use it:
// sinusoidal timestep embedding and its MLP, ResNet blocks, spatial
// transformers, stride-2 downsampling, nearest upsampling and skip
// connections, on channels-last activations with any batch (conditional and
// unconditional images together).
#ifndef OXINFER_PLUGINS_MODELS_SD_UNET_H_
#define OXINFER_PLUGINS_MODELS_SD_UNET_H_

#include <string>
#include <vector>

#include "oxinfer/sdk/status.hpp"
#include "plugins/models/sd/activations.h"
#include "plugins/models/sd/layers.h"
#include "plugins/models/sd/resnet_block.h"
#include "plugins/models/sd/spatial_transformer.h"

namespace oxinfer {
namespace sd {

class UNet {
 public:
  // dir: unet/ with config.json and the weights (matrix_dtype as
  // ComponentWeights::Open's).
  sdk::Status Load(const std::string& dir, const sdk::Compute* cx, oxi_dtype matrix_dtype,
                   bool use_mmap);
  // Load in two halves: config.json alone (the shapes the pipeline checks),
  // then the weights, which ReleaseWeights frees again (the configuration
  // stays, and LoadWeights brings them back).
  sdk::Status LoadConfig(const std::string& dir);
  sdk::Status LoadWeights(const sdk::Compute* cx, oxi_dtype matrix_dtype, bool use_mmap);
  void ReleaseWeights();
  bool loaded() const { return loaded_; }

  // sample [n][h][w][in_channels] at one timestep for all images, ctx
  // [n][1][len][cross_dim] -> [n][h][w][out_channels].
  sdk::StatusOr<Act> Forward(const Net& net, const Act& sample, float timestep,
                             const Act& ctx) const;

  int64_t in_channels() const { return in_ch_; }
  int64_t cross_dim() const { return cross_dim_; }
  int64_t sample_size() const { return sample_size_; }

 private:
  struct Block {
    std::vector<ResBlock> res;
    std::vector<SpatialTransformer> attn;  // empty, or one per ResBlock
    bool has_sampler = false;
    Conv sampler;  // down: stride-2 conv; up: conv after the 2x upsampling
  };
  sdk::StatusOr<Block> LoadBlock(const ComponentWeights& w, const std::string& p,
                                 const std::string& type, bool down, int64_t layers, int64_t heads,
                                 bool last) const;
  // time_embedding(timestep) with SiLU applied: [n][1][1][temb_dim].
  sdk::StatusOr<Act> TimeEmbedding(const Net& net, int64_t n, float timestep) const;

  // LoadConfig's.
  std::string dir_;
  std::vector<std::string> down_types_, up_types_;
  std::vector<int64_t> heads_;
  int64_t layers_ = 2;
  bool loaded_ = false;
  // Declared first, destroyed last: the layers' buffers may point into it.
  sdk::Weights weights_;
  int64_t in_ch_ = 4, out_ch_ = 4, cross_dim_ = 768, sample_size_ = 64, c0_ = 320;
  int32_t groups_ = 32;
  float eps_ = 1e-5f;
  bool flip_sin_to_cos_ = true;
  double freq_shift_ = 0;
  Conv conv_in_, conv_out_;
  Linear time1_, time2_;
  Norm norm_out_;
  std::vector<Block> down_, up_;
  ResBlock mid_res0_, mid_res1_;
  SpatialTransformer mid_attn_;
};

}  // namespace sd
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_SD_UNET_H_
