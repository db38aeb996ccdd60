// transformers' CLIPTextModel: token + position embeddings, pre-LN
// transformer layers with causal attention, final LayerNorm. Returns the last
// hidden state, which is what the Stable Diffusion pipelines condition on.
#ifndef OXINFER_PLUGINS_MODELS_SD_CLIP_TEXT_ENCODER_H_
#define OXINFER_PLUGINS_MODELS_SD_CLIP_TEXT_ENCODER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "plugins/models/sd/sd_ops.h"

namespace oxinfer {
namespace sd {

class ClipTextEncoder {
 public:
  // dir: text_encoder/ with config.json and the weights.
  // weight_dtype: as WeightStore::Open's storage.
  static absl::StatusOr<ClipTextEncoder> Load(const std::string& dir,
                                              oxi_dtype weight_dtype = OXI_DTYPE_F32);

  // ids [len] -> [1][1][len][hidden].
  absl::StatusOr<Act> Encode(const Ops& ops, const std::vector<int32_t>& ids) const;

  int64_t hidden() const { return hidden_; }
  int64_t max_positions() const { return max_pos_; }

 private:
  struct Layer {
    Norm ln1, ln2;
    Linear q, k, v, o, fc1, fc2;
  };
  int64_t hidden_ = 0, heads_ = 0, vocab_ = 0, max_pos_ = 0;
  bool quick_gelu_ = true;
  std::vector<float> tok_emb_, pos_emb_;
  std::vector<Layer> layers_;
  Norm final_ln_;
};

}  // namespace sd
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_SD_CLIP_TEXT_ENCODER_H_
