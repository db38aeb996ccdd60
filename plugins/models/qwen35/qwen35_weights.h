// The weights of a Qwen 3.5 text model, resident on the backend: matrices as
// stored (in place from the mapped file where the backend can) or quantised
// to Q8_0 / Q4_0 in the backend's preferred layout, small vectors as f32.
#ifndef OXINFER_PLUGINS_MODELS_QWEN35_QWEN35_WEIGHTS_H_
#define OXINFER_PLUGINS_MODELS_QWEN35_QWEN35_WEIGHTS_H_

#include <vector>

#include "oxinfer/sdk/compute.hpp"
#include "oxinfer/sdk/model_plugin.hpp"
#include "oxinfer/sdk/weights.hpp"
#include "plugins/models/qwen35/qwen35_config.h"

namespace oxinfer {
namespace qwen35 {

struct DeltaNetWeights {
  sdk::OwnedTensor in_proj_qkv;  // [conv_dim][hidden]: q, k, v channels
  sdk::OwnedTensor in_proj_z;    // [value_dim][hidden]
  sdk::OwnedTensor in_proj_b;    // [v_heads][hidden]
  sdk::OwnedTensor in_proj_a;    // [v_heads][hidden]
  sdk::OwnedTensor out_proj;     // [hidden][value_dim]
  sdk::OwnedTensor conv_w;       // [conv_dim][kernel] f32
  sdk::OwnedTensor neg_exp_a;    // [1][v_heads] f32: -exp(A_log)
  sdk::OwnedTensor dt_bias;      // [1][v_heads] f32
  sdk::OwnedTensor norm;         // [1][v_head_dim] f32, gated RMSNorm (plain weight)
};

struct AttentionWeights {
  sdk::OwnedTensor q_proj;  // [heads * 2 * head_dim][hidden]: per head, query then gate
  sdk::OwnedTensor k_proj;  // [kv_heads * head_dim][hidden]
  sdk::OwnedTensor v_proj;
  sdk::OwnedTensor o_proj;  // [hidden][heads * head_dim]
  sdk::OwnedTensor q_norm;  // [1][head_dim] f32, zero-centred
  sdk::OwnedTensor k_norm;
};

struct LayerWeights {
  LayerType type = LayerType::kLinearAttention;
  sdk::OwnedTensor input_norm, post_norm;  // [1][hidden] f32, zero-centred
  sdk::OwnedTensor gate_proj, up_proj;     // [intermediate][hidden]
  sdk::OwnedTensor down_proj;              // [hidden][intermediate]
  DeltaNetWeights lin;                     // linear-attention layers
  AttentionWeights attn;                   // full-attention layers
};

// The multi-token-prediction head (qwen35_mtp.h), loaded when drafting.
struct MtpWeights {
  sdk::OwnedTensor fc;  // [hidden][2 * hidden]: [embedding | hidden state] in
  sdk::OwnedTensor pre_fc_norm_embedding, pre_fc_norm_hidden;  // [1][hidden] f32, zero-centred
  sdk::OwnedTensor norm;                                       // [1][hidden] f32, zero-centred
  LayerWeights layer;                                          // a full-attention layer
};

struct Qwen35Weights {
  // The checkpoint, open for as long as the matrices used in place need it
  // (declared first: destroyed last).
  sdk::Weights file;
  sdk::OwnedTensor embed;        // [vocab][hidden] as stored (row lookups)
  sdk::OwnedTensor lm_head_own;  // an untied head, or a tied one's Q8_0 copy
  sdk::Tensor lm_head;           // what the LM head matmul reads
  sdk::OwnedTensor final_norm;   // [1][hidden] f32, zero-centred
  sdk::OwnedTensor inv_freq;     // [1][rotary_dim / 2] f32 RoPE frequencies
  std::vector<LayerWeights> layers;
  bool has_mtp = false;  // params.draft: loaded (else an error)
  MtpWeights mtp;
};

// Loads every text weight of the checkpoint in params.model_dir onto cx's
// backend (params: weight_dtype, use_mmap, progress), and with params.draft
// the MTP head (FAILED_PRECONDITION naming the first missing mtp.* tensor).
sdk::StatusOr<Qwen35Weights> LoadQwen35Weights(const sdk::Compute& cx, const Qwen35Config& c,
                                               const sdk::OpenParams& params);

}  // namespace qwen35
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_QWEN35_QWEN35_WEIGHTS_H_
