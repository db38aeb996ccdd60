// Gemma 4's vision tower and multimodal embedder, as transformers'
// Gemma4VisionModel + Gemma4MultimodalEmbedder compute them, through backend
// operations: the patch embedder (a linear over the patch's pixels scaled to
// [-1, 1], plus learnt x and y position rows), a ViT whose attention is
// bidirectional over the image, with axial 2-D RoPE (the first half of each
// head rotates by the patch's column, the second by its row), RMS-normed q / k
// / v and clipped linears; average pooling of pooling_kernel_size^2 patches,
// sqrt(hidden) scaling, optional standardisation; then an RMS norm without
// scale and the projection to the text model's width.
#ifndef OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_VISION_H_
#define OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_VISION_H_

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "oxinfer/sdk/compute.hpp"
#include "oxinfer/sdk/json.hpp"
#include "oxinfer/sdk/status.hpp"
#include "oxinfer/sdk/weights.hpp"
#include "plugins/models/gemma4/gemma4_clipped_linear.h"
#include "plugins/models/gemma4/gemma4_image_preprocess.h"

namespace oxinfer {
namespace gemma4 {

struct VisionConfig {
  int hidden_size = 0;
  int intermediate_size = 0;
  int num_layers = 0;
  int num_heads = 0;
  int num_kv_heads = 0;
  int head_dim = 0;
  double rms_norm_eps = 1e-6;
  int patch_size = 16;
  int pooling_kernel_size = 3;
  int position_embedding_size = 0;
  double rope_theta = 100.0;
  bool use_clipped_linears = false;
  bool standardize = false;
  int text_hidden_size = 0;  // the embedder's output width
};

// config.json's vision_config (absent or null: no tower, *present false).
sdk::Status ParseVisionConfig(const sdk::Json& root, VisionConfig* out, bool* present);

struct VisionLayerWeights {
  ClippedLinear q, k, v, o, gate, up, down;
  sdk::OwnedTensor q_norm, k_norm;  // [1][head_dim]
  sdk::OwnedTensor input_norm, post_attn_norm, pre_ff_norm, post_ff_norm;
};

class VisionTower {
 public:
  // The tower under model.vision_tower.* and the embedder model.embed_vision.*,
  // linear layers held as `dtype` (OXI_DTYPE_INVALID: as stored).
  static sdk::StatusOr<std::unique_ptr<VisionTower>> Load(const sdk::Compute& cx,
                                                          const sdk::Weights& file,
                                                          const VisionConfig& cfg, oxi_dtype dtype);

  // The soft tokens of one preprocessed image: [n_soft_tokens][text_hidden].
  sdk::StatusOr<std::vector<float>> Encode(const ImagePatches& image);

  const VisionConfig& config() const { return cfg_; }

 private:
  VisionTower(const sdk::Compute& cx, const VisionConfig& cfg)
      : cx_(cx), cfg_(cfg), scratch_(&cx_) {}
  // Per (patch, head) RoPE positions: columns and rows for q's and k's heads.
  struct RopePositions {
    sdk::Tensor xq, yq, xk, yk;
  };
  // y = clamp(clamp(x) w^T), the clamps where the layer has bounds.
  sdk::Status Linear(const ClippedLinear& l, const sdk::Tensor& x, const sdk::Tensor& y);
  // One encoder layer on x [n][hidden], in place.
  sdk::Status Layer(const VisionLayerWeights& l, const sdk::Tensor& x, const RopePositions& pos,
                    int64_t n);

  const sdk::Compute& cx_;
  const VisionConfig cfg_;
  sdk::Scratch scratch_;
  sdk::OwnedTensor input_proj_;  // [hidden][3 p^2]
  sdk::OwnedTensor pos_table_;   // [2 * position_embedding_size][hidden]
  std::vector<VisionLayerWeights> layers_;
  sdk::OwnedTensor std_bias_, std_scale_;  // [1][hidden] with standardize
  sdk::OwnedTensor inv_freq_;              // [1][head_dim / 4]
  sdk::OwnedTensor projection_;            // [text_hidden][hidden]
};

}  // namespace gemma4
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_VISION_H_
