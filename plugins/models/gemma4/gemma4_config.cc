#include "plugins/models/gemma4/gemma4_config.h"

#include <cmath>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/json_util.h"
#include "nlohmann/json.hpp"

namespace oxinfer {
namespace gemma4 {
namespace {

using json = nlohmann::json;

absl::StatusOr<int> GetInt(const json& j, const char* key, int fallback, bool required) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    if (required) return absl::InvalidArgumentError(absl::StrCat("config: missing '", key, "'"));
    return fallback;
  }
  if (!it->is_number_integer() || it->get<int64_t>() < 0 || it->get<int64_t>() > (1ll << 31) - 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("config: '", key, "' must be a non-negative integer, got ", it->dump()));
  }
  return static_cast<int>(it->get<int64_t>());
}

absl::StatusOr<double> GetDouble(const json& j, const char* key, double fallback) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_number()) {
    return absl::InvalidArgumentError(
        absl::StrCat("config: '", key, "' must be a number, got ", it->dump()));
  }
  return it->get<double>();
}

absl::StatusOr<bool> GetBool(const json& j, const char* key, bool fallback) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) {
    return absl::InvalidArgumentError(
        absl::StrCat("config: '", key, "' must be true or false, got ", it->dump()));
  }
  return it->get<bool>();
}

std::string GetString(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

#define G4_ASSIGN(lhs, expr)          \
  do {                                \
    auto _r = (expr);                 \
    if (!_r.ok()) return _r.status(); \
    lhs = *_r;                        \
  } while (0)

absl::StatusOr<RopeConfig> ParseRope(const json& text, const char* layer_type, double default_theta,
                                     bool default_proportional, double default_partial) {
  RopeConfig rope;
  rope.theta = default_theta;
  rope.proportional = default_proportional;
  rope.partial_rotary_factor = default_partial;
  auto rp = text.find("rope_parameters");
  if (rp == text.end() || rp->is_null()) return rope;
  if (!rp->is_object())
    return absl::InvalidArgumentError("config: rope_parameters is not an object");
  auto it = rp->find(layer_type);
  if (it == rp->end() || it->is_null()) return rope;
  const json& p = *it;
  std::string type = GetString(p, "rope_type");
  if (type.empty() || type == "default") {
    rope.proportional = false;
  } else if (type == "proportional") {
    rope.proportional = true;
  } else {
    return absl::UnimplementedError(absl::StrCat("Gemma 4: rope_type '", type, "' for ", layer_type,
                                                 " is not supported (default, proportional)"));
  }
  G4_ASSIGN(rope.theta, GetDouble(p, "rope_theta", default_theta));
  G4_ASSIGN(rope.partial_rotary_factor, GetDouble(p, "partial_rotary_factor", 1.0));
  G4_ASSIGN(rope.factor, GetDouble(p, "factor", 1.0));
  if (rope.theta <= 0 || rope.factor <= 0 || rope.partial_rotary_factor < 0 ||
      rope.partial_rotary_factor > 1) {
    return absl::InvalidArgumentError(absl::StrCat("config: bad rope_parameters for ", layer_type));
  }
  return rope;
}

}  // namespace

absl::StatusOr<Gemma4Config> ParseGemma4Config(std::string_view config_json) {
  auto parsed = ParseJsonStrict(config_json);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("config.json: ", parsed.status().message()));
  }
  const json& top = *parsed;
  if (!top.is_object()) return absl::InvalidArgumentError("config.json is not a JSON object");
  const std::string top_type = GetString(top, "model_type");
  if (top_type == "gemma4_unified" || top_type == "gemma4_unified_text") {
    return absl::UnimplementedError(
        "Gemma 4 unified (model_type gemma4_unified, the 12B) is a different architecture "
        "(raw patch/audio projections into the LM); this plugin runs gemma4 / gemma4_text only");
  }
  if (top_type == "gemma4_assistant") {
    return absl::UnimplementedError(
        "Gemma 4 drafter models (gemma4_assistant) are not supported by this plugin");
  }
  const json* text = &top;
  if (top_type == "gemma4") {
    auto it = top.find("text_config");
    if (it == top.end() || !it->is_object()) {
      return absl::InvalidArgumentError(
          "config.json: model_type gemma4 without a text_config object");
    }
    text = &*it;
  } else if (top_type != "gemma4_text") {
    return absl::InvalidArgumentError(
        absl::StrCat("not a Gemma 4 checkpoint (model_type '", top_type, "')"));
  }
  const json& t = *text;
  Gemma4Config c;
  c.model_type = GetString(t, "model_type");
  if (!c.model_type.empty() && c.model_type != "gemma4_text") {
    return absl::UnimplementedError(
        absl::StrCat("Gemma 4: text model_type '", c.model_type, "' is not supported"));
  }
  bool moe = false;
  G4_ASSIGN(moe, GetBool(t, "enable_moe_block", false));
  if (moe) {
    return absl::UnimplementedError(
        "Gemma 4 MoE checkpoints (enable_moe_block, e.g. gemma-4-26B-A4B) are not supported "
        "by this plugin yet: the router and expert layers are not implemented");
  }
  if (GetString(t, "use_bidirectional_attention") == "all") {
    return absl::UnimplementedError(
        "Gemma 4: use_bidirectional_attention 'all' (non-causal text) is not supported");
  }
  G4_ASSIGN(c.vocab_size, GetInt(t, "vocab_size", 262144, false));
  G4_ASSIGN(c.hidden_size, GetInt(t, "hidden_size", 2304, false));
  G4_ASSIGN(c.intermediate_size, GetInt(t, "intermediate_size", 9216, false));
  G4_ASSIGN(c.num_layers, GetInt(t, "num_hidden_layers", 30, false));
  G4_ASSIGN(c.num_heads, GetInt(t, "num_attention_heads", 8, false));
  G4_ASSIGN(c.num_kv_heads, GetInt(t, "num_key_value_heads", 4, false));
  G4_ASSIGN(c.head_dim, GetInt(t, "head_dim", 256, false));
  G4_ASSIGN(c.global_head_dim, GetInt(t, "global_head_dim", 512, false));
  G4_ASSIGN(c.num_global_kv_heads, GetInt(t, "num_global_key_value_heads", 0, false));
  G4_ASSIGN(c.sliding_window, GetInt(t, "sliding_window", 512, false));
  G4_ASSIGN(c.max_position_embeddings, GetInt(t, "max_position_embeddings", 131072, false));
  G4_ASSIGN(c.hidden_size_per_layer_input, GetInt(t, "hidden_size_per_layer_input", 256, false));
  G4_ASSIGN(c.vocab_size_per_layer_input, GetInt(t, "vocab_size_per_layer_input", 262144, false));
  G4_ASSIGN(c.num_kv_shared_layers, GetInt(t, "num_kv_shared_layers", 0, false));
  G4_ASSIGN(c.attention_k_eq_v, GetBool(t, "attention_k_eq_v", false));
  G4_ASSIGN(c.use_double_wide_mlp, GetBool(t, "use_double_wide_mlp", false));
  G4_ASSIGN(c.rms_norm_eps, GetDouble(t, "rms_norm_eps", 1e-6));
  G4_ASSIGN(c.final_logit_softcapping, GetDouble(t, "final_logit_softcapping", 0.0));
  c.hidden_activation = GetString(t, "hidden_activation");
  if (c.hidden_activation.empty()) c.hidden_activation = "gelu_pytorch_tanh";
  if (c.hidden_activation != "gelu_pytorch_tanh") {
    return absl::UnimplementedError(
        absl::StrCat("Gemma 4: hidden_activation '", c.hidden_activation, "' is not supported"));
  }
  bool attention_bias = false;
  G4_ASSIGN(attention_bias, GetBool(t, "attention_bias", false));
  if (attention_bias) return absl::UnimplementedError("Gemma 4: attention_bias is not supported");
  bool tie = true;
  G4_ASSIGN(tie, GetBool(top, "tie_word_embeddings", true));
  G4_ASSIGN(tie, GetBool(t, "tie_word_embeddings", tie));
  if (!tie) return absl::UnimplementedError("Gemma 4: untied word embeddings are not supported");

  if (c.vocab_size <= 0 || c.hidden_size <= 0 || c.intermediate_size <= 0 || c.num_layers <= 0 ||
      c.num_heads <= 0 || c.num_kv_heads <= 0 || c.head_dim <= 0 || c.head_dim % 2 != 0 ||
      c.global_head_dim <= 0 || c.global_head_dim % 2 != 0 || c.sliding_window <= 0) {
    return absl::InvalidArgumentError("config: sizes must be positive (and head dims even)");
  }
  if (c.num_heads % c.num_kv_heads != 0) {
    return absl::InvalidArgumentError(
        "config: num_attention_heads not a multiple of num_key_value_heads");
  }
  if (c.hidden_size_per_layer_input > 0 && c.vocab_size_per_layer_input <= 0) {
    return absl::InvalidArgumentError("config: vocab_size_per_layer_input must be positive");
  }
  if (c.num_kv_shared_layers < 0 || c.num_kv_shared_layers >= c.num_layers) {
    return absl::UnimplementedError(absl::StrCat("Gemma 4: num_kv_shared_layers ",
                                                 c.num_kv_shared_layers, " of ", c.num_layers,
                                                 " layers: a model whose every layer reads another "
                                                 "model's KV (a drafter) cannot run alone"));
  }

  // Layer types (default: 5 sliding then 1 full; the last layer is always full).
  std::vector<bool> sliding(c.num_layers);
  auto lt = t.find("layer_types");
  if (lt != t.end() && !lt->is_null()) {
    if (!lt->is_array() || static_cast<int>(lt->size()) != c.num_layers) {
      return absl::InvalidArgumentError("config: layer_types must list num_hidden_layers entries");
    }
    for (int i = 0; i < c.num_layers; ++i) {
      const json& e = (*lt)[i];
      std::string s = e.is_string() ? e.get<std::string>() : "";
      if (s == "sliding_attention") {
        sliding[i] = true;
      } else if (s == "full_attention") {
        sliding[i] = false;
      } else {
        return absl::InvalidArgumentError(absl::StrCat("config: unknown layer type ", e.dump()));
      }
    }
  } else {
    for (int i = 0; i < c.num_layers; ++i) sliding[i] = ((i + 1) % 6) != 0;
  }
  sliding[c.num_layers - 1] = false;  // transformers forces this

  {
    auto r = ParseRope(t, "sliding_attention", 10000.0, false, 1.0);
    if (!r.ok()) return r.status();
    c.rope_sliding = *r;
    r = ParseRope(t, "full_attention", 1000000.0, true, 0.25);
    if (!r.ok()) return r.status();
    c.rope_full = *r;
  }

  // Per-layer geometry: full layers use global_head_dim and, with k = v,
  // num_global_key_value_heads; a per_layer_config (newer writers) overrides.
  c.layers.resize(c.num_layers);
  const int global_kv =
      (c.attention_k_eq_v && c.num_global_kv_heads > 0) ? c.num_global_kv_heads : c.num_kv_heads;
  for (int i = 0; i < c.num_layers; ++i) {
    LayerConfig& l = c.layers[i];
    l.sliding = sliding[i];
    l.head_dim = l.sliding ? c.head_dim : c.global_head_dim;
    l.num_kv_heads = l.sliding ? c.num_kv_heads : global_kv;
    l.k_eq_v = c.attention_k_eq_v && !l.sliding;
  }
  auto plc = t.find("per_layer_config");
  if (plc != t.end() && !plc->is_null()) {
    if (!plc->is_object())
      return absl::InvalidArgumentError("config: per_layer_config is not an object");
    // Written by newer transformers in place of global_head_dim: it is the whole truth.
    for (int i = 0; i < c.num_layers; ++i) {
      c.layers[i].head_dim = c.head_dim;
      c.layers[i].num_kv_heads = c.num_kv_heads;
    }
    for (auto it = plc->begin(); it != plc->end(); ++it) {
      int idx = -1;
      try {
        size_t used = 0;
        idx = std::stoi(it.key(), &used);
        if (used != it.key().size()) idx = -1;
      } catch (...) {
        idx = -1;
      }
      if (idx < 0 || idx >= c.num_layers || !it.value().is_object()) {
        return absl::InvalidArgumentError(
            absl::StrCat("config: bad per_layer_config entry '", it.key(), "'"));
      }
      G4_ASSIGN(c.layers[idx].head_dim,
                GetInt(it.value(), "head_dim", c.layers[idx].head_dim, false));
      G4_ASSIGN(c.layers[idx].num_kv_heads,
                GetInt(it.value(), "num_key_value_heads", c.layers[idx].num_kv_heads, false));
    }
  }
  for (int i = 0; i < c.num_layers; ++i) {
    const LayerConfig& l = c.layers[i];
    if (l.head_dim <= 0 || l.head_dim % 2 || l.num_kv_heads <= 0 || c.num_heads % l.num_kv_heads) {
      return absl::InvalidArgumentError(
          absl::StrCat("config: bad attention geometry of layer ", i));
    }
  }

  // KV sharing (transformers' kv_sharing_modes): from first_shared on, a layer
  // reads the K/V of the last earlier non-shared layer of its type.
  const int first_shared = c.num_layers - c.num_kv_shared_layers;
  for (int i = 0; i < c.num_layers; ++i) {
    LayerConfig& l = c.layers[i];
    l.intermediate_size = c.intermediate_size;
    l.kv_source = i;
    if (i < first_shared) continue;
    int src = -1;
    for (int j = first_shared - 1; j >= 0; --j) {
      if (c.layers[j].sliding == l.sliding) {
        src = j;
        break;
      }
    }
    if (src < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "config: KV-shared layer ", i, " has no earlier layer of its type to read K/V from"));
    }
    if (c.layers[src].head_dim != l.head_dim || c.layers[src].num_kv_heads != l.num_kv_heads) {
      return absl::InvalidArgumentError(
          absl::StrCat("config: KV-shared layer ", i, " differs in geometry from layer ", src));
    }
    l.kv_shared = true;
    l.kv_source = src;
    l.k_eq_v = c.layers[src].k_eq_v;
    if (c.use_double_wide_mlp) l.intermediate_size = 2 * c.intermediate_size;
  }
  return c;
}

std::vector<float> RopeInvFreq(const RopeConfig& rope, int head_dim) {
  const int half = head_dim / 2;
  std::vector<float> inv(half, 0.0f);
  const float base = static_cast<float>(rope.theta);
  int rotated = half;
  if (rope.proportional) {
    // int(partial_rotary_factor * head_dim // 2), as transformers computes it.
    rotated = static_cast<int>(std::floor(rope.partial_rotary_factor * head_dim / 2.0));
    if (rotated > half) rotated = half;
  }
  for (int i = 0; i < rotated; ++i) {
    const float e = static_cast<float>(2 * i) / static_cast<float>(head_dim);
    inv[i] = 1.0f / std::pow(base, e);
    if (rope.proportional) inv[i] = inv[i] / static_cast<float>(rope.factor);
  }
  return inv;
}

}  // namespace gemma4
}  // namespace oxinfer
