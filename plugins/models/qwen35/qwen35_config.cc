#include "plugins/models/qwen35/qwen35_config.h"

#include <cmath>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "plugins/models/qwen35/status_macros.h"

namespace oxinfer {
namespace qwen35 {
namespace {

using nlohmann::json;

absl::Status GetInt(const json& obj, const char* key, int64_t* out, bool required) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) {
    if (required)
      return absl::InvalidArgumentError(absl::StrCat("config.json: missing '", key, "'"));
    return absl::OkStatus();
  }
  if (!it->is_number_integer() && !it->is_number_unsigned()) {
    return absl::InvalidArgumentError(absl::StrCat("config.json: '", key, "' is not an integer"));
  }
  *out = it->get<int64_t>();
  return absl::OkStatus();
}

absl::Status GetDouble(const json& obj, const char* key, double* out) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return absl::OkStatus();
  if (!it->is_number()) {
    return absl::InvalidArgumentError(absl::StrCat("config.json: '", key, "' is not a number"));
  }
  *out = it->get<double>();
  return absl::OkStatus();
}

absl::Status GetBool(const json& obj, const char* key, bool* out) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return absl::OkStatus();
  if (!it->is_boolean()) {
    return absl::InvalidArgumentError(absl::StrCat("config.json: '", key, "' is not a boolean"));
  }
  *out = it->get<bool>();
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Qwen35Config> ParseQwen35Config(std::string_view config_json) {
  json root = json::parse(config_json.begin(), config_json.end(), nullptr,
                          /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) {
    return absl::InvalidArgumentError("config.json is not a JSON object");
  }
  Qwen35Config c;
  c.model_type = root.value("model_type", std::string());
  const json* text = &root;
  if (c.model_type == "qwen3_5") {
    auto it = root.find("text_config");
    if (it == root.end() || !it->is_object()) {
      return absl::InvalidArgumentError("config.json: qwen3_5 without a text_config object");
    }
    text = &*it;
  } else if (c.model_type != "qwen3_5_text") {
    if (c.model_type == "qwen3_5_moe" || c.model_type == "qwen3_5_moe_text") {
      return absl::UnimplementedError("Qwen 3.5 MoE checkpoints are not supported (dense only)");
    }
    return absl::InvalidArgumentError(
        absl::StrCat("model_type '", c.model_type, "' is not qwen3_5 / qwen3_5_text"));
  }
  const json& t = *text;
  QWEN35_RETURN_IF_ERROR(GetInt(t, "vocab_size", &c.vocab_size, true));
  QWEN35_RETURN_IF_ERROR(GetInt(t, "hidden_size", &c.hidden_size, true));
  QWEN35_RETURN_IF_ERROR(GetInt(t, "intermediate_size", &c.intermediate_size, true));
  QWEN35_RETURN_IF_ERROR(GetInt(t, "num_hidden_layers", &c.num_hidden_layers, true));
  QWEN35_RETURN_IF_ERROR(GetInt(t, "num_attention_heads", &c.num_attention_heads, true));
  QWEN35_RETURN_IF_ERROR(GetInt(t, "num_key_value_heads", &c.num_key_value_heads, true));
  c.head_dim = 256;  // Qwen3_5TextConfig default
  QWEN35_RETURN_IF_ERROR(GetInt(t, "head_dim", &c.head_dim, false));
  c.linear_num_key_heads = 16;
  c.linear_num_value_heads = 32;
  c.linear_key_head_dim = 128;
  c.linear_value_head_dim = 128;
  QWEN35_RETURN_IF_ERROR(GetInt(t, "linear_num_key_heads", &c.linear_num_key_heads, false));
  QWEN35_RETURN_IF_ERROR(GetInt(t, "linear_num_value_heads", &c.linear_num_value_heads, false));
  QWEN35_RETURN_IF_ERROR(GetInt(t, "linear_key_head_dim", &c.linear_key_head_dim, false));
  QWEN35_RETURN_IF_ERROR(GetInt(t, "linear_value_head_dim", &c.linear_value_head_dim, false));
  QWEN35_RETURN_IF_ERROR(GetInt(t, "linear_conv_kernel_dim", &c.linear_conv_kernel_dim, false));
  QWEN35_RETURN_IF_ERROR(GetInt(t, "max_position_embeddings", &c.max_position_embeddings, false));
  QWEN35_RETURN_IF_ERROR(GetDouble(t, "rms_norm_eps", &c.rms_norm_eps));
  QWEN35_RETURN_IF_ERROR(GetBool(t, "attn_output_gate", &c.attn_output_gate));
  bool attention_bias = false;
  QWEN35_RETURN_IF_ERROR(GetBool(t, "attention_bias", &attention_bias));
  // tie_word_embeddings: the top level of a qwen3_5 checkpoint says it; a text
  // config alone carries its own.
  QWEN35_RETURN_IF_ERROR(GetBool(t, "tie_word_embeddings", &c.tie_word_embeddings));
  if (text != &root)
    QWEN35_RETURN_IF_ERROR(GetBool(root, "tie_word_embeddings", &c.tie_word_embeddings));
  std::string act = t.value("hidden_act", std::string("silu"));
  if (act != "silu") return absl::UnimplementedError(absl::StrCat("hidden_act '", act, "'"));
  if (!c.attn_output_gate) return absl::UnimplementedError("attn_output_gate false");
  // Some re-saves name the DeltaNet output gate's activation; Qwen 3.5 uses SiLU (swish).
  if (auto it = t.find("output_gate_type"); it != t.end() && it->is_string()) {
    const std::string g = it->get<std::string>();
    if (g != "swish" && g != "silu") {
      return absl::UnimplementedError(absl::StrCat("output_gate_type '", g, "'"));
    }
  }
  if (attention_bias) return absl::UnimplementedError("attention_bias true");
  if (t.contains("num_experts") && t["num_experts"].is_number() &&
      t["num_experts"].get<int64_t>() > 0) {
    return absl::UnimplementedError("MoE layers are not supported (dense only)");
  }

  // RoPE: rope_parameters (transformers >= 5) or the older flat keys.
  const json* rope = &t;
  if (auto it = t.find("rope_parameters"); it != t.end() && it->is_object())
    rope = &*it;
  else if (auto it2 = t.find("rope_scaling"); it2 != t.end() && it2->is_object())
    rope = &*it2;
  QWEN35_RETURN_IF_ERROR(GetDouble(t, "rope_theta", &c.rope_theta));
  QWEN35_RETURN_IF_ERROR(GetDouble(t, "partial_rotary_factor", &c.partial_rotary_factor));
  QWEN35_RETURN_IF_ERROR(GetDouble(*rope, "rope_theta", &c.rope_theta));
  QWEN35_RETURN_IF_ERROR(GetDouble(*rope, "partial_rotary_factor", &c.partial_rotary_factor));
  std::string rope_type = rope->value("rope_type", rope->value("type", std::string("default")));
  if (rope_type != "default") {
    return absl::UnimplementedError(absl::StrCat("rope_type '", rope_type, "'"));
  }
  c.rotary_dim = static_cast<int64_t>(c.head_dim * c.partial_rotary_factor);

  // Layer types: explicit, or every full_attention_interval-th layer.
  if (auto it = t.find("layer_types"); it != t.end() && it->is_array()) {
    for (const auto& e : *it) {
      std::string s = e.is_string() ? e.get<std::string>() : std::string();
      if (s == "linear_attention")
        c.layer_types.push_back(LayerType::kLinearAttention);
      else if (s == "full_attention")
        c.layer_types.push_back(LayerType::kFullAttention);
      else
        return absl::InvalidArgumentError(absl::StrCat("layer_types: unknown '", s, "'"));
    }
  } else {
    int64_t interval = 4;
    QWEN35_RETURN_IF_ERROR(GetInt(t, "full_attention_interval", &interval, false));
    if (interval <= 0) return absl::InvalidArgumentError("full_attention_interval <= 0");
    for (int64_t i = 0; i < c.num_hidden_layers; ++i) {
      c.layer_types.push_back((i + 1) % interval ? LayerType::kLinearAttention
                                                 : LayerType::kFullAttention);
    }
  }
  if (static_cast<int64_t>(c.layer_types.size()) != c.num_hidden_layers) {
    return absl::InvalidArgumentError("layer_types does not have num_hidden_layers entries");
  }
  if (auto it = t.find("eos_token_id"); it != t.end()) {
    if (it->is_number_integer()) c.eos_token_ids.push_back(it->get<int64_t>());
    if (it->is_array()) {
      for (const auto& e : *it) {
        if (e.is_number_integer()) c.eos_token_ids.push_back(e.get<int64_t>());
      }
    }
  }

  // Shape sanity: everything positive, heads divide evenly.
  if (c.vocab_size <= 0 || c.hidden_size <= 0 || c.intermediate_size <= 0 ||
      c.num_hidden_layers <= 0 || c.num_attention_heads <= 0 || c.num_key_value_heads <= 0 ||
      c.head_dim <= 0 || c.linear_num_key_heads <= 0 || c.linear_num_value_heads <= 0 ||
      c.linear_key_head_dim <= 0 || c.linear_value_head_dim <= 0 || c.linear_conv_kernel_dim <= 0 ||
      !(c.rms_norm_eps > 0) || !(c.rope_theta > 0)) {
    return absl::InvalidArgumentError("config.json: a size is missing, zero or negative");
  }
  if (c.num_attention_heads % c.num_key_value_heads != 0) {
    return absl::InvalidArgumentError(
        "num_attention_heads is not a multiple of num_key_value_heads");
  }
  if (c.linear_num_value_heads % c.linear_num_key_heads != 0) {
    return absl::InvalidArgumentError(
        "linear_num_value_heads is not a multiple of linear_num_key_heads");
  }
  if (c.rotary_dim < 0 || c.rotary_dim > c.head_dim || c.rotary_dim % 2 != 0) {
    return absl::InvalidArgumentError("partial_rotary_factor gives an odd or too large rotary dim");
  }
  return c;
}

}  // namespace qwen35
}  // namespace oxinfer
