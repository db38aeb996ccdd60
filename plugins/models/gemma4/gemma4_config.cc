#include "plugins/models/gemma4/gemma4_config.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "oxinfer/sdk/json.hpp"

namespace oxinfer {
namespace gemma4 {
namespace {

using sdk::Json;

constexpr int64_t kMaxInt = std::numeric_limits<int32_t>::max();

// A non-negative int32 field, or `fallback` when absent or null.
sdk::StatusOr<int> GetInt(const Json& j, const char* key, int fallback) {
  const Json v = j[key];
  if (v.is_missing()) return fallback;
  OXI_ASSIGN_OR_RETURN(int64_t x, v.IntIn(0, kMaxInt));
  return static_cast<int>(x);
}

// A string field; "" when absent or not a string (informational fields).
std::string GetString(const Json& j, const char* key) {
  const Json v = j[key];
  if (!v.is_string()) return "";
  auto s = v.String();
  return s.ok() ? *s : "";
}

sdk::StatusOr<RopeConfig> ParseRope(const Json& text, const char* layer_type, double default_theta,
                                    bool default_proportional, double default_partial) {
  RopeConfig rope;
  rope.theta = default_theta;
  rope.proportional = default_proportional;
  rope.partial_rotary_factor = default_partial;
  const Json rp = text["rope_parameters"];
  if (rp.is_missing()) return rope;
  if (!rp.is_object()) return rp.Error("not an object");
  const Json p = rp[layer_type];
  if (p.is_missing()) return rope;
  if (!p.is_object()) return p.Error("not an object");
  const std::string type = GetString(p, "rope_type");
  if (type.empty() || type == "default") {
    rope.proportional = false;
  } else if (type == "proportional") {
    rope.proportional = true;
  } else {
    return sdk::UnimplementedError(sdk::StrCat("Gemma 4: rope_type '", type, "' for ", layer_type,
                                               " is not supported (default, proportional)"));
  }
  OXI_ASSIGN_OR_RETURN(rope.theta, p["rope_theta"].NumberOr(default_theta));
  OXI_ASSIGN_OR_RETURN(rope.partial_rotary_factor, p["partial_rotary_factor"].NumberOr(1.0));
  OXI_ASSIGN_OR_RETURN(rope.factor, p["factor"].NumberOr(1.0));
  if (!(rope.theta > 0) || !(rope.factor > 0) || !(rope.partial_rotary_factor >= 0) ||
      rope.partial_rotary_factor > 1) {
    return p.Error("bad rope_theta, factor or partial_rotary_factor");
  }
  return rope;
}

// Stop tokens (eos_token_id of the wrapper and of the text part) and the
// special tokens the host may need, from whichever level names them.
sdk::StatusOr<TokenConfig> ParseTokens(const Json& top, const Json& text) {
  TokenConfig t;
  for (const Json* level : {&top, &text}) {
    OXI_ASSIGN_OR_RETURN(std::vector<int64_t> eos, (*level)["eos_token_id"].IntList());
    for (int64_t id : eos) {
      if (id < 0 || id > kMaxInt) return (*level)["eos_token_id"].Error("negative or too large");
      if (std::find(t.stop_tokens.begin(), t.stop_tokens.end(), id) == t.stop_tokens.end()) {
        t.stop_tokens.push_back(static_cast<int32_t>(id));
      }
    }
  }
  if (!t.stop_tokens.empty()) t.special_tokens.emplace_back("eos", t.stop_tokens[0]);
  struct Role {
    const char* role;
    const char* key;
  };
  const Role roles[] = {
      {"bos", "bos_token_id"},     {"pad", "pad_token_id"},     {"image", "image_token_id"},
      {"audio", "audio_token_id"}, {"video", "video_token_id"}, {"boi", "boi_token_id"},
      {"eoi", "eoi_token_id"},     {"boa", "boa_token_id"},     {"eoa", "eoa_token_id"}};
  for (const Role& r : roles) {
    OXI_ASSIGN_OR_RETURN(int id, GetInt(text, r.key, -1));
    if (id < 0) {
      OXI_ASSIGN_OR_RETURN(id, GetInt(top, r.key, -1));
    }
    if (id < 0) continue;
    t.special_tokens.emplace_back(r.role, id);
    if (std::string(r.role) == "pad") t.pad_token_id = id;
    const std::string role = r.role;
    if (role == "image" || role == "audio" || role == "video") t.media_placeholders.push_back(id);
  }
  return t;
}

// Layer types (default: 5 sliding then 1 full; the last layer is always full).
sdk::StatusOr<std::vector<bool>> ParseLayerTypes(const Json& t, int num_layers) {
  std::vector<bool> sliding(num_layers);
  const Json lt = t["layer_types"];
  if (!lt.is_missing()) {
    if (!lt.is_array() || lt.size() != num_layers) {
      return lt.Error("must list num_hidden_layers entries");
    }
    for (int i = 0; i < num_layers; ++i) {
      const Json e = lt[i];
      const std::string s = e.is_string() ? *e.String() : "";
      if (s == "sliding_attention") {
        sliding[i] = true;
      } else if (s == "full_attention") {
        sliding[i] = false;
      } else {
        return e.Error("unknown layer type (sliding_attention or full_attention)");
      }
    }
  } else {
    for (int i = 0; i < num_layers; ++i) sliding[i] = ((i + 1) % 6) != 0;
  }
  sliding[num_layers - 1] = false;  // transformers forces this
  return sliding;
}

// Per-layer geometry: full layers use global_head_dim and, with k = v,
// num_global_key_value_heads; a per_layer_config (newer writers) overrides.
sdk::Status ParseLayerGeometry(const Json& t, Gemma4Config* c) {
  const int global_kv = (c->attention_k_eq_v && c->num_global_kv_heads > 0) ? c->num_global_kv_heads
                                                                            : c->num_kv_heads;
  for (LayerConfig& l : c->layers) {
    l.head_dim = l.sliding ? c->head_dim : c->global_head_dim;
    l.num_kv_heads = l.sliding ? c->num_kv_heads : global_kv;
    l.k_eq_v = c->attention_k_eq_v && !l.sliding;
  }
  const Json plc = t["per_layer_config"];
  if (!plc.is_missing()) {
    if (!plc.is_object()) return plc.Error("not an object");
    // Written by newer transformers in place of global_head_dim: it is the whole truth.
    for (LayerConfig& l : c->layers) {
      l.head_dim = c->head_dim;
      l.num_kv_heads = c->num_kv_heads;
    }
    for (const Json& e : plc.Children()) {
      const std::string key(e.key());
      int idx = -1;
      if (!key.empty() && key.size() < 10 &&
          std::all_of(key.begin(), key.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
        idx = std::stoi(key);
      }
      if (idx < 0 || idx >= c->num_layers || !e.is_object()) {
        return e.Error("bad per_layer_config entry (a layer index with an object)");
      }
      LayerConfig& l = c->layers[idx];
      OXI_ASSIGN_OR_RETURN(l.head_dim, GetInt(e, "head_dim", l.head_dim));
      OXI_ASSIGN_OR_RETURN(l.num_kv_heads, GetInt(e, "num_key_value_heads", l.num_kv_heads));
    }
  }
  for (int i = 0; i < c->num_layers; ++i) {
    const LayerConfig& l = c->layers[i];
    if (l.head_dim <= 0 || l.head_dim % 2 || l.num_kv_heads <= 0 || c->num_heads % l.num_kv_heads) {
      return sdk::InvalidArgumentError(sdk::StrCat("config: bad attention geometry of layer ", i));
    }
  }
  return sdk::OkStatus();
}

// KV sharing (transformers' kv_sharing_modes): from first_shared on, a layer
// reads the K/V of the last earlier non-shared layer of its type. A drafter's
// layers all read another model's (kv_source -1 here).
sdk::Status ResolveKvSharing(Gemma4Config* c, bool drafter) {
  const int first_shared = c->first_kv_shared();
  for (int i = 0; i < c->num_layers; ++i) {
    LayerConfig& l = c->layers[i];
    l.intermediate_size = c->intermediate_size;
    l.kv_source = i;
    if (i < first_shared) continue;
    if (drafter) {
      l.kv_shared = true;
      l.kv_source = -1;
      continue;
    }
    int src = -1;
    for (int j = first_shared - 1; j >= 0; --j) {
      if (c->layers[j].sliding == l.sliding) {
        src = j;
        break;
      }
    }
    if (src < 0) {
      return sdk::InvalidArgumentError(sdk::StrCat(
          "config: KV-shared layer ", i, " has no earlier layer of its type to read K/V from"));
    }
    if (c->layers[src].head_dim != l.head_dim || c->layers[src].num_kv_heads != l.num_kv_heads) {
      return sdk::InvalidArgumentError(
          sdk::StrCat("config: KV-shared layer ", i, " differs in geometry from layer ", src));
    }
    l.kv_shared = true;
    l.kv_source = src;
    l.k_eq_v = c->layers[src].k_eq_v;
    if (c->use_double_wide_mlp) l.intermediate_size = 2 * c->intermediate_size;
  }
  return sdk::OkStatus();
}

// Refuses the Gemma 4 variants this plugin does not run.
sdk::Status CheckSupported(const Json& top, const Json& t, const std::string& top_type) {
  if (top_type == "gemma4_unified" || top_type == "gemma4_unified_text") {
    return sdk::UnimplementedError(
        "Gemma 4 unified (model_type gemma4_unified, the 12B) is a different architecture "
        "(raw patch/audio projections into the LM); this plugin runs gemma4 / gemma4_text only");
  }
  const std::string text_type = GetString(t, "model_type");
  if (!text_type.empty() && text_type != "gemma4_text") {
    return sdk::UnimplementedError(
        sdk::StrCat("Gemma 4: text model_type '", text_type, "' is not supported"));
  }
  OXI_ASSIGN_OR_RETURN(bool moe, t["enable_moe_block"].BoolOr(false));
  if (moe) {
    return sdk::UnimplementedError(
        "Gemma 4 MoE checkpoints (enable_moe_block, e.g. gemma-4-26B-A4B) are not supported "
        "by this plugin yet: the router and expert layers are not implemented");
  }
  if (GetString(t, "use_bidirectional_attention") == "all") {
    return sdk::UnimplementedError(
        "Gemma 4: use_bidirectional_attention 'all' (non-causal text) is not supported");
  }
  const std::string act = GetString(t, "hidden_activation");
  if (!act.empty() && act != "gelu_pytorch_tanh") {
    return sdk::UnimplementedError(
        sdk::StrCat("Gemma 4: hidden_activation '", act, "' is not supported"));
  }
  OXI_ASSIGN_OR_RETURN(bool attention_bias, t["attention_bias"].BoolOr(false));
  if (attention_bias) return sdk::UnimplementedError("Gemma 4: attention_bias is not supported");
  OXI_ASSIGN_OR_RETURN(bool tie, top["tie_word_embeddings"].BoolOr(true));
  OXI_ASSIGN_OR_RETURN(tie, t["tie_word_embeddings"].BoolOr(tie));
  if (!tie) return sdk::UnimplementedError("Gemma 4: untied word embeddings are not supported");
  return sdk::OkStatus();
}

sdk::Status ParseSizes(const Json& t, bool drafter, Gemma4Config* c) {
  OXI_ASSIGN_OR_RETURN(c->vocab_size, GetInt(t, "vocab_size", 262144));
  OXI_ASSIGN_OR_RETURN(c->hidden_size, GetInt(t, "hidden_size", 2304));
  OXI_ASSIGN_OR_RETURN(c->intermediate_size, GetInt(t, "intermediate_size", 9216));
  OXI_ASSIGN_OR_RETURN(c->num_layers, GetInt(t, "num_hidden_layers", 30));
  OXI_ASSIGN_OR_RETURN(c->num_heads, GetInt(t, "num_attention_heads", 8));
  OXI_ASSIGN_OR_RETURN(c->num_kv_heads, GetInt(t, "num_key_value_heads", 4));
  OXI_ASSIGN_OR_RETURN(c->head_dim, GetInt(t, "head_dim", 256));
  OXI_ASSIGN_OR_RETURN(c->global_head_dim, GetInt(t, "global_head_dim", 512));
  OXI_ASSIGN_OR_RETURN(c->num_global_kv_heads, GetInt(t, "num_global_key_value_heads", 0));
  OXI_ASSIGN_OR_RETURN(c->sliding_window, GetInt(t, "sliding_window", 512));
  OXI_ASSIGN_OR_RETURN(c->max_position_embeddings, GetInt(t, "max_position_embeddings", 131072));
  OXI_ASSIGN_OR_RETURN(c->hidden_size_per_layer_input,
                       GetInt(t, "hidden_size_per_layer_input", 256));
  OXI_ASSIGN_OR_RETURN(c->vocab_size_per_layer_input,
                       GetInt(t, "vocab_size_per_layer_input", 262144));
  OXI_ASSIGN_OR_RETURN(c->num_kv_shared_layers, GetInt(t, "num_kv_shared_layers", 0));
  OXI_ASSIGN_OR_RETURN(c->attention_k_eq_v, t["attention_k_eq_v"].BoolOr(false));
  OXI_ASSIGN_OR_RETURN(c->use_double_wide_mlp, t["use_double_wide_mlp"].BoolOr(false));
  OXI_ASSIGN_OR_RETURN(c->rms_norm_eps, t["rms_norm_eps"].NumberOr(1e-6));
  OXI_ASSIGN_OR_RETURN(c->final_logit_softcapping, t["final_logit_softcapping"].NumberOr(0.0));
  c->hidden_activation = "gelu_pytorch_tanh";

  // Each refusal names the field.
  const struct {
    const char* name;
    int64_t value;
    bool even;
  } kPositive[] = {{"vocab_size", c->vocab_size, false},
                   {"hidden_size", c->hidden_size, false},
                   {"intermediate_size", c->intermediate_size, false},
                   {"num_hidden_layers", c->num_layers, false},
                   {"num_attention_heads", c->num_heads, false},
                   {"num_key_value_heads", c->num_kv_heads, false},
                   {"head_dim", c->head_dim, true},
                   {"global_head_dim", c->global_head_dim, true},
                   {"sliding_window", c->sliding_window, false},
                   {"max_position_embeddings", c->max_position_embeddings, false}};
  for (const auto& p : kPositive) {
    if (p.value <= 0 || (p.even && p.value % 2 != 0)) {
      return t[p.name].Error(sdk::StrCat(p.value, ": must be positive", p.even ? " and even" : ""));
    }
  }
  if (!(c->rms_norm_eps > 0) || !std::isfinite(c->rms_norm_eps)) {
    return t["rms_norm_eps"].Error("must be a positive finite number");
  }
  if (!(c->final_logit_softcapping >= 0) || !std::isfinite(c->final_logit_softcapping)) {
    return t["final_logit_softcapping"].Error("must be a finite number >= 0 (0: off)");
  }
  if (c->num_heads % c->num_kv_heads != 0) {
    return sdk::InvalidArgumentError(
        "config: num_attention_heads not a multiple of num_key_value_heads");
  }
  if (c->hidden_size_per_layer_input > 0 && c->vocab_size_per_layer_input <= 0) {
    return sdk::InvalidArgumentError("config: vocab_size_per_layer_input must be positive");
  }
  if (drafter) {
    // transformers' Gemma4AssistantConfig: 0 or absent means all of them.
    if (c->num_kv_shared_layers == 0) c->num_kv_shared_layers = c->num_layers;
    if (c->num_kv_shared_layers != c->num_layers) {
      return t["num_kv_shared_layers"].Error(
          sdk::StrCat(c->num_kv_shared_layers, ": a drafter's layers must all be KV-shared (",
                      c->num_layers, ")"));
    }
  } else if (c->num_kv_shared_layers >= c->num_layers) {
    return sdk::UnimplementedError(sdk::StrCat(
        "Gemma 4: num_kv_shared_layers ", c->num_kv_shared_layers, " of ", c->num_layers,
        " layers: a model whose every layer reads another model's KV (a drafter) cannot run "
        "alone"));
  }
  return sdk::OkStatus();
}

}  // namespace

sdk::StatusOr<Gemma4Config> ParseGemma4Config(std::string_view config_json) {
  OXI_ASSIGN_OR_RETURN(sdk::JsonDoc doc, sdk::JsonDoc::Parse(config_json, "config.json"));
  const Json top = doc.root();
  if (!top.is_object()) return sdk::InvalidArgumentError("config.json is not a JSON object");
  const std::string top_type = GetString(top, "model_type");
  if (top_type == "gemma4_assistant") {
    return sdk::UnimplementedError(
        "Gemma 4 drafter models (gemma4_assistant) do not run alone: pass the folder as --draft "
        "beside its main model");
  }
  Json t = top;
  if (top_type == "gemma4") {
    t = top["text_config"];
    if (!t.is_object()) {
      return sdk::InvalidArgumentError(
          "config.json: model_type gemma4 without a text_config object");
    }
  } else if (top_type != "gemma4_text" && top_type != "gemma4_unified" &&
             top_type != "gemma4_unified_text") {
    return sdk::InvalidArgumentError(
        sdk::StrCat("not a Gemma 4 checkpoint (model_type '", top_type, "')"));
  }
  OXI_RETURN_IF_ERROR(CheckSupported(top, t, top_type));
  return ParseGemma4TextConfig(top, t, /*drafter=*/false);
}

sdk::StatusOr<Gemma4Config> ParseGemma4TextConfig(const Json& top, const Json& t, bool drafter) {
  if (drafter) OXI_RETURN_IF_ERROR(CheckSupported(top, t, "gemma4_assistant"));
  Gemma4Config c;
  c.model_type = GetString(t, "model_type");
  c.bidirectional_vision = GetString(t, "use_bidirectional_attention") == "vision";
  OXI_RETURN_IF_ERROR(ParseSizes(t, drafter, &c));
  OXI_ASSIGN_OR_RETURN(std::vector<bool> sliding, ParseLayerTypes(t, c.num_layers));
  c.layers.resize(c.num_layers);
  for (int i = 0; i < c.num_layers; ++i) c.layers[i].sliding = sliding[i];
  OXI_ASSIGN_OR_RETURN(c.rope_sliding, ParseRope(t, "sliding_attention", 10000.0, false, 1.0));
  OXI_ASSIGN_OR_RETURN(c.rope_full, ParseRope(t, "full_attention", 1000000.0, true, 0.25));
  OXI_RETURN_IF_ERROR(ParseLayerGeometry(t, &c));
  OXI_RETURN_IF_ERROR(ResolveKvSharing(&c, drafter));
  OXI_ASSIGN_OR_RETURN(c.tokens, ParseTokens(top, t));
  if (c.tokens.pad_token_id >= c.vocab_size ||
      (c.hidden_size_per_layer_input > 0 &&
       c.tokens.pad_token_id >= c.vocab_size_per_layer_input)) {
    return sdk::InvalidArgumentError(
        sdk::StrCat("config: pad_token_id ", c.tokens.pad_token_id, " outside the vocabulary"));
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
