// transformers' CLIPTextModel: token + position embeddings, pre-LN
// transformer layers with causal attention, final LayerNorm. Returns the last
// hidden state, which is what the Stable Diffusion pipelines condition on.
#ifndef OXINFER_PLUGINS_MODELS_SD_CLIP_TEXT_ENCODER_H_
#define OXINFER_PLUGINS_MODELS_SD_CLIP_TEXT_ENCODER_H_

#include <string>
#include <vector>

#include "oxinfer/sdk/status.hpp"
#include "plugins/models/sd/activations.h"
#include "plugins/models/sd/layers.h"

namespace oxinfer {
namespace sd {

class ClipTextEncoder {
 public:
  // dir: text_encoder/ with config.json and the weights (matrix_dtype as
  // ComponentWeights::Open's).
  sdk::Status Load(const std::string& dir, const sdk::Compute* cx, oxi_dtype matrix_dtype,
                   bool use_mmap);
  // The two halves of Load, as UNet's: config.json, then the weights, which
  // ReleaseWeights frees again.
  sdk::Status LoadConfig(const std::string& dir);
  sdk::Status LoadWeights(const sdk::Compute* cx, oxi_dtype matrix_dtype, bool use_mmap);
  void ReleaseWeights();
  bool loaded() const { return loaded_; }

  // n sequences of equal length, ids [n * len] -> [n][1][len][hidden].
  sdk::StatusOr<Act> Encode(const Net& net, const std::vector<int32_t>& ids, int64_t n) const;

  int64_t hidden() const { return hidden_; }
  int64_t max_positions() const { return max_pos_; }

 private:
  struct Layer {
    Norm ln1, ln2;
    Linear q, k, v, o, fc1, fc2;
  };

  // LoadConfig's.
  std::string dir_;
  int64_t n_layers_ = 0;
  float eps_ = 1e-5f;
  bool loaded_ = false;
  // Declared first, destroyed last: the layers' buffers may point into it.
  sdk::Weights weights_;
  int64_t hidden_ = 0, heads_ = 0, vocab_ = 0, max_pos_ = 0;
  oxi_unary_op act_ = OXI_UNARY_QUICK_GELU;
  sdk::OwnedTensor tok_emb_;  // [vocab][hidden], as the matrices are held
  sdk::OwnedTensor pos_emb_;  // [max_pos][hidden] f32
  std::vector<Layer> layers_;
  Norm final_ln_;
};

}  // namespace sd
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_SD_CLIP_TEXT_ENCODER_H_
