// Qwen 3.5 / 3.6 / 3.8 dense (model_type qwen3_5 / qwen3_5_text) configuration,
// read from a checkpoint's config.json (the text part; the vision tower is not
// used, the MTP head only for drafting) through the host's JSON parser.
#ifndef OXINFER_PLUGINS_MODELS_QWEN35_QWEN35_CONFIG_H_
#define OXINFER_PLUGINS_MODELS_QWEN35_QWEN35_CONFIG_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "oxinfer/sdk/status.hpp"

namespace oxinfer {
namespace qwen35 {

enum class LayerType { kLinearAttention, kFullAttention };

struct Qwen35Config {
  std::string model_type;  // as found at the top level ("qwen3_5" or "qwen3_5_text")
  int64_t vocab_size = 0;
  int64_t hidden_size = 0;
  int64_t intermediate_size = 0;
  int64_t num_hidden_layers = 0;
  // Gated full attention.
  int64_t num_attention_heads = 0;
  int64_t num_key_value_heads = 0;
  int64_t head_dim = 0;
  bool attn_output_gate = true;
  double rope_theta = 10000000.0;
  double partial_rotary_factor = 0.25;
  int64_t rotary_dim = 0;  // head_dim * partial_rotary_factor, even
  // Gated DeltaNet.
  int64_t linear_num_key_heads = 0;
  int64_t linear_num_value_heads = 0;
  int64_t linear_key_head_dim = 0;
  int64_t linear_value_head_dim = 0;
  int64_t linear_conv_kernel_dim = 4;
  double rms_norm_eps = 1e-6;
  bool tie_word_embeddings = false;
  int64_t max_position_embeddings = 0;
  int64_t mtp_num_hidden_layers = 0;  // the MTP head's layers (drafting reads the first)
  std::vector<LayerType> layer_types;
  // End-of-turn tokens: the top level's eos_token_id, then text_config's (no repeats).
  std::vector<int64_t> eos_token_ids;
  // Roles ("bos", "pad", "image", "video", "boi", "eoi") and ids the config names.
  std::vector<std::pair<std::string, int64_t>> special_tokens;

  int64_t key_dim() const { return linear_num_key_heads * linear_key_head_dim; }
  int64_t value_dim() const { return linear_num_value_heads * linear_value_head_dim; }
  int64_t conv_dim() const { return 2 * key_dim() + value_dim(); }
};

// Parses config.json text (`source` names it in messages). A checkpoint of
// another family gives INVALID_ARGUMENT naming its model_type; unsupported
// variants (MoE, no output gate, attention bias) give UNIMPLEMENTED; a field
// of the wrong type or value gives INVALID_ARGUMENT naming the field.
sdk::StatusOr<Qwen35Config> ParseQwen35Config(std::string_view config_json,
                                              const std::string& source = "config.json");

}  // namespace qwen35
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_QWEN35_QWEN35_CONFIG_H_
