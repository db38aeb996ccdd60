// The Gemma 4 text decoder's weights, resident on the backend: linear layers
// as stored or converted at load (bf16 / f16 / Q8_0 / Q4_0, in the layout the
// backend's matmul prefers), embedding tables as stored (row lookups), norm
// weights and RoPE tables as f32 rows.
#ifndef OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_WEIGHTS_H_
#define OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_WEIGHTS_H_

#include <string>
#include <vector>

#include "oxinfer/sdk/compute.hpp"
#include "oxinfer/sdk/model_plugin.hpp"
#include "oxinfer/sdk/status.hpp"
#include "oxinfer/sdk/weights.hpp"
#include "plugins/models/gemma4/gemma4_config.h"

namespace oxinfer {
namespace gemma4 {

struct LayerWeights {
  sdk::OwnedTensor q_proj, k_proj, v_proj, o_proj;  // k/v absent on KV-shared layers, v with k = v
  sdk::OwnedTensor gate_proj, up_proj, down_proj;
  sdk::OwnedTensor per_layer_input_gate, per_layer_projection;  // with per-layer inputs
  // [1][dim] f32, used as x * w.
  sdk::OwnedTensor q_norm, k_norm, input_norm, post_attn_norm, pre_ff_norm, post_ff_norm,
      post_per_layer_input_norm;
  float layer_scalar = 1.0f;
  int rope_table = 0;  // index into Gemma4Weights::rope_tables
};

struct Gemma4Weights {
  // First member: destroyed last, after the buffers that use its mapping in place.
  sdk::Weights file;
  sdk::OwnedTensor embed;            // [vocab][hidden], as stored
  sdk::OwnedTensor lm_head_q8;       // the tied head's Q8_0 copy under q8 / q4; else empty
  sdk::OwnedTensor embed_per_layer;  // [vocab_ple][layers * ple], as stored
  sdk::OwnedTensor per_layer_model_projection;  // [layers * ple][hidden]
  sdk::OwnedTensor per_layer_projection_norm, final_norm;
  std::vector<sdk::OwnedTensor> rope_tables;  // [1][head_dim / 2] inverse frequencies
  sdk::OwnedTensor softcap;                   // [1][1] f32: final_logit_softcapping
  std::vector<LayerWeights> layers;

  const sdk::Tensor& lm_head() const { return lm_head_q8.t.empty() ? embed.t : lm_head_q8.t; }
};

// Loads the text decoder of the checkpoint in model_dir (tensors named
// model.language_model.* or model.*). weight_dtype: OXI_DTYPE_INVALID keeps
// linear layers as stored. matrix_head: the embedding is also the LM head's
// matrix (under q8 / q4 it then gets a Q8_0 copy); false where it is only
// read by rows (the assistant's ordered, centroid-masked head).
sdk::Status LoadGemma4Weights(const sdk::Compute& cx, const sdk::OpenParams& params,
                              const Gemma4Config& cfg, Gemma4Weights* out, bool matrix_head = true);

}  // namespace gemma4
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_WEIGHTS_H_
