// The Qwen 3.5 dense text model: Gated DeltaNet layers interleaved with gated
// full-attention layers. Prefill uses the chunked gated delta rule, decode (one
// token) the recurrent form; each DeltaNet layer keeps a fixed-size conv state
// and recurrent state, each attention layer a KV cache.
#ifndef OXINFER_PLUGINS_MODELS_QWEN35_QWEN35_MODEL_H_
#define OXINFER_PLUGINS_MODELS_QWEN35_QWEN35_MODEL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "oxinfer/plugin_abi.h"
#include "plugins/models/qwen35/ops.h"
#include "plugins/models/qwen35/qwen35_config.h"
#include "plugins/models/qwen35/weights.h"

namespace oxinfer {
namespace qwen35 {

// A weight matrix [rows][cols] handed to the backend's matmul.
struct Matrix {
  const void* data = nullptr;
  oxi_dtype dtype = OXI_DTYPE_INVALID;
  int64_t rows = 0, cols = 0;
  std::shared_ptr<void> owned;  // set when converted or copied at load
};

struct DeltaNetLayer {
  Matrix in_proj_qkv, in_proj_z, in_proj_b, in_proj_a, out_proj;
  std::vector<float> conv_w;   // [conv_dim][kernel]
  std::vector<float> neg_a;    // -exp(A_log), [num_v_heads]
  std::vector<float> dt_bias;  // [num_v_heads]
  std::vector<float> norm_w;   // gated RMSNorm weight [v_head_dim] (plain, not zero-centred)
  // State.
  std::vector<float> conv_state;       // [kernel-1][conv_dim]
  std::vector<float> recurrent_state;  // [num_v_heads][k_dim][v_dim]
};

struct AttentionLayer {
  Matrix q_proj, k_proj, v_proj, o_proj;
  std::vector<float> q_norm, k_norm;  // zero-centred, [head_dim]
  // KV cache: rows [pos][num_kv_heads][head_dim].
  std::vector<float> k_cache, v_cache;
};

struct Layer {
  LayerType type;
  std::vector<float> input_norm, post_norm;  // zero-centred
  Matrix gate_proj, up_proj, down_proj;
  DeltaNetLayer lin;
  AttentionLayer attn;
};

struct ModelOptions {
  oxi_dtype weight_dtype = OXI_DTYPE_INVALID;  // INVALID: as stored
  bool use_mmap = true;
  int64_t context_length = 0;  // 0: max_position_embeddings (or unbounded if 0)
  int64_t prefill_chunk = 0;   // tokens per forward block; 0: 512
  int64_t delta_chunk = 64;    // chunk of the chunked gated delta rule
  // Optional loading progress (layers loaded of all), as oxi_model_open_params.progress.
  void (*progress)(void* ctx, double done, double total, const char* what) = nullptr;
  void* progress_ctx = nullptr;
};

class Qwen35Model {
 public:
  static absl::StatusOr<std::unique_ptr<Qwen35Model>> Open(const std::string& model_dir,
                                                           const Ops& ops,
                                                           const ModelOptions& options);

  const Qwen35Config& config() const { return config_; }
  int64_t position() const { return n_past_; }

  // Appends tokens; writes the last token's logits [vocab_size] if logits != nullptr.
  absl::Status Forward(const int32_t* tokens, int64_t n, float* logits);
  // Keeps the first n_keep tokens. DeltaNet states cannot be rewound, so only
  // n_keep == 0 (reset) or n_keep >= position() is supported.
  absl::Status Truncate(int64_t n_keep);
  // Forces the recurrent form for every block (tests compare the two forms).
  void set_force_recurrent(bool v) { force_recurrent_ = v; }

 private:
  Qwen35Model(const Qwen35Config& c, const Ops& ops, const ModelOptions& o)
      : config_(c), ops_(ops), options_(o) {}
  absl::Status Load(const std::string& model_dir);
  absl::Status ForwardBlock(const int32_t* tokens, int64_t n, float* logits);
  absl::Status DeltaNet(Layer& layer, const float* h, int64_t n, float* out);
  absl::Status Attention(Layer& layer, const float* h, int64_t n, float* out);
  absl::Status Mlp(Layer& layer, const float* h, int64_t n, float* out);
  void ResetState();

  Qwen35Config config_;
  Ops ops_;
  ModelOptions options_;
  std::unique_ptr<WeightFiles> files_;
  Matrix embed_, lm_head_;
  std::vector<float> final_norm_;
  std::vector<Layer> layers_;
  std::vector<float> inv_freq_;
  int64_t n_past_ = 0;
  std::vector<int32_t> tokens_;  // the sequence so far (Truncate replays a prefix)
  bool force_recurrent_ = false;
};

}  // namespace qwen35
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_QWEN35_QWEN35_MODEL_H_
