// Gemma 4 text-model configuration, read from a Hugging Face config.json.
//
// Accepts the multimodal wrapper (model_type "gemma4", fields under
// "text_config") and the text-only form ("gemma4_text"). Both layouts of the
// global-layer overrides are understood: the published one
// (global_head_dim / num_global_key_value_heads, transformers 5.5) and the one
// newer transformers writes (per_layer_config: {"<layer>": {head_dim, ...}}).
// Refused with a reason: gemma4_unified (12B, another architecture), the
// drafters (gemma4_assistant: gemma4_assistant_config.h), MoE blocks (26B-A4B), fully bidirectional
// text attention, RoPE types other than default / proportional.
#ifndef OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_CONFIG_H_
#define OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_CONFIG_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "oxinfer/sdk/json.hpp"
#include "oxinfer/sdk/status.hpp"

namespace oxinfer {
namespace gemma4 {

struct RopeConfig {
  bool proportional = false;  // "proportional" (else "default")
  double theta = 10000.0;
  double partial_rotary_factor = 1.0;  // proportional only
  double factor = 1.0;                 // proportional only
};

struct LayerConfig {
  bool sliding = true;
  int head_dim = 0;
  int num_kv_heads = 0;
  bool k_eq_v = false;        // no v_proj: V = v_norm(k_proj(x))
  int kv_source = -1;         // the layer whose K/V this one reads (itself unless shared)
  bool kv_shared = false;     // reads another layer's K/V, computes none
  int intermediate_size = 0;  // 2x on shared layers when use_double_wide_mlp
};

// Token ids the host needs (model_abi.h: stop and special tokens).
struct TokenConfig {
  std::vector<int32_t> stop_tokens;                             // eos_token_id, both levels
  std::vector<std::pair<std::string, int32_t>> special_tokens;  // role, id
  int32_t pad_token_id = 0;
  // image / audio / video token ids: embedded as pad_token_id wherever they
  // reach the model as tokens (transformers' multimodal merge does so).
  std::vector<int32_t> media_placeholders;
  bool IsMediaPlaceholder(int32_t id) const {
    for (int32_t m : media_placeholders) {
      if (m == id) return true;
    }
    return false;
  }
};

struct Gemma4Config {
  std::string model_type;  // of the text part
  int vocab_size = 0;
  int hidden_size = 0;
  int intermediate_size = 0;
  int num_layers = 0;
  int num_heads = 0;
  int num_kv_heads = 0;
  int head_dim = 0;
  int global_head_dim = 0;
  int num_global_kv_heads = 0;  // 0: as num_kv_heads
  int sliding_window = 0;
  int max_position_embeddings = 0;
  int hidden_size_per_layer_input = 0;  // 0: no per-layer embeddings
  int vocab_size_per_layer_input = 0;
  int num_kv_shared_layers = 0;
  bool attention_k_eq_v = false;
  bool use_double_wide_mlp = false;
  // use_bidirectional_attention "vision" (12B, 26B-A4B, 31B): an image's soft
  // tokens attend to each other both ways on sliding layers. Not implemented,
  // so EncodeMedia refuses images on such checkpoints (text is unaffected).
  bool bidirectional_vision = false;
  double rms_norm_eps = 1e-6;
  double final_logit_softcapping = 0.0;  // 0: none
  std::string hidden_activation;
  RopeConfig rope_sliding;
  RopeConfig rope_full;
  std::vector<LayerConfig> layers;
  TokenConfig tokens;
  // The first KV-shared layer (num_layers when none): from it on no layer
  // writes a cache, so only the rows whose logits are wanted matter.
  int first_kv_shared() const { return num_layers - num_kv_shared_layers; }
};

// Parses config.json text (through the host's JSON parser). INVALID_ARGUMENT
// for malformed or inconsistent configs, UNIMPLEMENTED (with a reason meant
// for users) for Gemma 4 variants this plugin does not run.
sdk::StatusOr<Gemma4Config> ParseGemma4Config(std::string_view config_json);

// The text part of a config (`text` under the wrapper `top`, or both the
// same object). drafter: a gemma4_assistant's text_config, whose layers all
// read the main model's K/V (num_kv_shared_layers = num_hidden_layers,
// kv_source -1).
sdk::StatusOr<Gemma4Config> ParseGemma4TextConfig(const sdk::Json& top, const sdk::Json& text,
                                                  bool drafter);

// The inverse frequencies (head_dim / 2 of them) of a layer's RoPE, computed
// in float32 as transformers does; a proportional table ends in zeros (those
// pairs do not rotate).
std::vector<float> RopeInvFreq(const RopeConfig& rope, int head_dim);

}  // namespace gemma4
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_CONFIG_H_
