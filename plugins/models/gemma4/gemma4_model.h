// The Gemma 4 text decoder (transformers' Gemma4TextModel + tied LM head),
// computed through an oxi_backend_iface.
//
// Features: sliding-window and global layers with their own head dims and RoPE
// (default / proportional), q/k/v RMS norms (attention scale 1), k = v on
// global layers, KV sharing over the last layers (they read the cache of the
// last earlier layer of their type), per-layer embeddings (PLE), layer
// scalars, double-wide MLP on shared layers, final logit softcapping.
// Prefill runs in chunks; sliding layers keep a ring buffer of
// window + chunk slots, global layers a growing cache.
#ifndef OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_MODEL_H_
#define OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_MODEL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/safetensors.h"
#include "oxinfer/plugin_abi.h"
#include "plugins/models/gemma4/gemma4_config.h"

namespace oxinfer {
namespace gemma4 {

struct ModelOptions {
  oxi_dtype weight_dtype = OXI_DTYPE_INVALID;  // INVALID: as stored
  bool use_mmap = true;
  int context_length = 0;  // 0: max_position_embeddings
  int prefill_chunk = 0;   // 0: default (256)
};

class Gemma4Model {
 public:
  // Opens the checkpoint in model_dir (config.json + safetensors). `backend`
  // is borrowed and must outlive the model.
  static absl::StatusOr<std::unique_ptr<Gemma4Model>> Open(const std::string& model_dir,
                                                           const oxi_backend_iface* backend,
                                                           const ModelOptions& options);

  const Gemma4Config& config() const { return cfg_; }
  int vocab_size() const { return cfg_.vocab_size; }
  int64_t num_tokens() const { return static_cast<int64_t>(tokens_.size()); }

  // Appends n tokens; writes the last token's logits when logits != nullptr.
  absl::Status Forward(const int32_t* tokens, int64_t n, float* logits);
  // Keeps the first n_keep tokens.
  absl::Status Truncate(int64_t n_keep);

 private:
  struct Linear {
    const void* data = nullptr;
    oxi_dtype dtype = OXI_DTYPE_INVALID;
    int64_t n = 0, k = 0;  // [n][k]
  };
  struct Layer {
    LayerConfig cfg;
    Linear q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj;
    Linear per_layer_input_gate, per_layer_projection;
    std::vector<float> q_norm, k_norm, input_norm, post_attn_norm, pre_ff_norm, post_ff_norm,
        post_per_layer_input_norm;
    float layer_scalar = 1.0f;
    std::vector<float> inv_freq;
  };
  struct KvCache {
    int64_t capacity = 0;  // slots in use for a ring; 0: grows with the sequence
    int64_t row = 0;       // floats per slot (kv heads * head dim)
    std::vector<float> k, v;
    std::vector<int32_t> pos;  // position held by each slot, -1: empty
    int64_t slots() const { return static_cast<int64_t>(pos.size()); }
  };

  Gemma4Model() = default;
  absl::Status Load(const std::string& model_dir, const ModelOptions& options);
  absl::StatusOr<Linear> GetLinear(const std::string& name, int64_t n, int64_t k);
  absl::StatusOr<std::vector<float>> GetVector(const std::string& name, int64_t n);
  void ResetCaches();
  // Forgets every position >= n_keep in the caches (recomputing the prefix if a
  // ring lost entries the kept window needs) and in the token history.
  absl::Status DropFrom(int64_t n_keep);
  absl::Status RunChunk(const int32_t* tokens, int64_t m, int64_t p0, float* logits);

  // Backend calls, each turning an error code into a Status.
  absl::Status Check(int32_t code, const char* op) const;
  absl::Status MatMul(const float* x, int64_t m, const Linear& w, float* y) const;
  absl::Status RmsNorm(const float* x, const float* w, int64_t rows, int64_t dim, float* out) const;
  absl::Status Add(const float* a, const float* b, int64_t n, float* out) const;
  absl::Status Mul(const float* a, const float* b, int64_t n, int64_t nb, float* out) const;
  absl::Status Scale(const float* x, int64_t n, float s, float* out) const;
  absl::Status Unary(oxi_unary_op op, const float* x, int64_t n, float* out) const;

  Gemma4Config cfg_;
  ModelOptions options_;
  const oxi_backend_iface* be_ = nullptr;
  ModelWeights weights_;
  std::vector<std::vector<uint8_t>> owned_;  // converted weights
  std::string prefix_;                       // "model.language_model." or "model."
  Linear embed_;                             // [vocab][hidden], row lookups
  Linear lm_head_;                           // embed_, or its Q8_0 copy under q8 / q4
  Linear embed_per_layer_;                   // [vocab_ple][layers * ple]
  Linear per_layer_model_projection_;        // [layers * ple][hidden]
  std::vector<float> per_layer_projection_norm_, final_norm_;
  std::vector<Layer> layers_;
  std::vector<KvCache> caches_;  // one per layer; shared layers leave theirs empty
  std::vector<int32_t> tokens_;  // the sequence so far (to rebuild after a deep truncate)
  int64_t chunk_ = 256;
  int64_t context_ = 0;
};

}  // namespace gemma4
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_MODEL_H_
