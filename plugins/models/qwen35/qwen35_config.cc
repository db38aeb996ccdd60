#include "plugins/models/qwen35/qwen35_config.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "oxinfer/sdk/json.hpp"

namespace oxinfer {
namespace qwen35 {
namespace {

using sdk::Json;
using sdk::StrCat;

// Sets *out when the field is present (not null); `required` fields must be.
sdk::Status ReadInt(const Json& obj, const char* key, int64_t* out, bool required = false) {
  const Json v = obj[key];
  if (v.is_missing()) {
    return required ? v.Error("missing") : sdk::OkStatus();
  }
  OXI_ASSIGN_OR_RETURN(*out, v.Int());
  return sdk::OkStatus();
}

sdk::Status ReadNumber(const Json& obj, const char* key, double* out) {
  OXI_ASSIGN_OR_RETURN(*out, obj[key].NumberOr(*out));
  return sdk::OkStatus();
}

sdk::Status ReadBool(const Json& obj, const char* key, bool* out) {
  OXI_ASSIGN_OR_RETURN(*out, obj[key].BoolOr(*out));
  return sdk::OkStatus();
}

sdk::Status ReadLayerTypes(const Json& t, Qwen35Config* c) {
  const Json types = t["layer_types"];
  if (!types.is_missing()) {
    if (!types.is_array()) return types.Error("expected an array of layer types");
    for (const Json& e : types.Children()) {
      OXI_ASSIGN_OR_RETURN(std::string s, e.String());
      if (s == "linear_attention") {
        c->layer_types.push_back(LayerType::kLinearAttention);
      } else if (s == "full_attention") {
        c->layer_types.push_back(LayerType::kFullAttention);
      } else {
        return e.Error(StrCat("unknown layer type '", s, "'"));
      }
    }
  } else {
    // Every full_attention_interval-th layer is full attention.
    int64_t interval = 4;
    OXI_RETURN_IF_ERROR(ReadInt(t, "full_attention_interval", &interval));
    if (interval <= 0) return t["full_attention_interval"].Error("must be positive");
    for (int64_t i = 0; i < c->num_hidden_layers; ++i) {
      c->layer_types.push_back((i + 1) % interval ? LayerType::kLinearAttention
                                                  : LayerType::kFullAttention);
    }
  }
  if (static_cast<int64_t>(c->layer_types.size()) != c->num_hidden_layers) {
    return types.Error(StrCat("has ", c->layer_types.size(), " entries, not num_hidden_layers (",
                              c->num_hidden_layers, ")"));
  }
  return sdk::OkStatus();
}

sdk::Status ReadRope(const Json& t, Qwen35Config* c) {
  // rope_parameters (transformers >= 5) or the older flat keys / rope_scaling.
  Json rope = t;
  if (t["rope_parameters"].is_object()) {
    rope = t["rope_parameters"];
  } else if (t["rope_scaling"].is_object()) {
    rope = t["rope_scaling"];
  }
  OXI_RETURN_IF_ERROR(ReadNumber(t, "rope_theta", &c->rope_theta));
  OXI_RETURN_IF_ERROR(ReadNumber(t, "partial_rotary_factor", &c->partial_rotary_factor));
  OXI_RETURN_IF_ERROR(ReadNumber(rope, "rope_theta", &c->rope_theta));
  OXI_RETURN_IF_ERROR(ReadNumber(rope, "partial_rotary_factor", &c->partial_rotary_factor));
  OXI_ASSIGN_OR_RETURN(std::string type, rope["type"].StringOr("default"));
  OXI_ASSIGN_OR_RETURN(type, rope["rope_type"].StringOr(type));
  if (type != "default") {
    return sdk::UnimplementedError(StrCat(rope.where(), ": rope_type '", type, "'"));
  }
  c->rotary_dim = static_cast<int64_t>(c->head_dim * c->partial_rotary_factor);
  return sdk::OkStatus();
}

// eos_token_id of the top level then text_config; special token ids where named.
sdk::Status ReadTokens(const Json& root, const Json& t, Qwen35Config* c) {
  for (const Json& where : {root, t}) {
    OXI_ASSIGN_OR_RETURN(std::vector<int64_t> ids, where["eos_token_id"].IntList());
    for (int64_t id : ids) {
      if (std::find(c->eos_token_ids.begin(), c->eos_token_ids.end(), id) ==
          c->eos_token_ids.end()) {
        c->eos_token_ids.push_back(id);
      }
    }
  }
  const struct {
    const char* role;
    const char* key;
  } kSpecials[] = {{"bos", "bos_token_id"},          {"pad", "pad_token_id"},
                   {"image", "image_token_id"},      {"video", "video_token_id"},
                   {"boi", "vision_start_token_id"}, {"eoi", "vision_end_token_id"}};
  for (const auto& s : kSpecials) {
    int64_t id = -1;
    OXI_RETURN_IF_ERROR(ReadInt(t, s.key, &id));
    if (id < 0) OXI_RETURN_IF_ERROR(ReadInt(root, s.key, &id));
    if (id >= 0) c->special_tokens.emplace_back(s.role, id);
  }
  if (!c->eos_token_ids.empty()) c->special_tokens.emplace_back("eos", c->eos_token_ids[0]);
  return sdk::OkStatus();
}

sdk::Status CheckSizes(const Json& t, const Qwen35Config& c) {
  const struct {
    const char* key;
    int64_t value;
  } kPositive[] = {{"vocab_size", c.vocab_size},
                   {"hidden_size", c.hidden_size},
                   {"intermediate_size", c.intermediate_size},
                   {"num_hidden_layers", c.num_hidden_layers},
                   {"num_attention_heads", c.num_attention_heads},
                   {"num_key_value_heads", c.num_key_value_heads},
                   {"head_dim", c.head_dim},
                   {"linear_num_key_heads", c.linear_num_key_heads},
                   {"linear_num_value_heads", c.linear_num_value_heads},
                   {"linear_key_head_dim", c.linear_key_head_dim},
                   {"linear_value_head_dim", c.linear_value_head_dim},
                   {"linear_conv_kernel_dim", c.linear_conv_kernel_dim}};
  for (const auto& p : kPositive) {
    // Sizes beyond 2^31 would overflow the ABI's int32 head counts and dims.
    if (p.value <= 0 || p.value > (int64_t{1} << 31) - 1) {
      return t[p.key].Error(StrCat(p.value, " is zero, negative or too large"));
    }
  }
  if (!(c.rms_norm_eps > 0) || !std::isfinite(c.rms_norm_eps)) {
    return t["rms_norm_eps"].Error("must be a positive finite number");
  }
  if (!(c.rope_theta > 0)) return t["rope_theta"].Error("must be positive");
  if (c.num_attention_heads % c.num_key_value_heads != 0) {
    return t["num_attention_heads"].Error(StrCat(c.num_attention_heads,
                                                 " is not a multiple of num_key_value_heads (",
                                                 c.num_key_value_heads, ")"));
  }
  if (c.linear_num_value_heads % c.linear_num_key_heads != 0) {
    return t["linear_num_value_heads"].Error(StrCat(c.linear_num_value_heads,
                                                    " is not a multiple of linear_num_key_heads (",
                                                    c.linear_num_key_heads, ")"));
  }
  if (c.rotary_dim < 0 || c.rotary_dim > c.head_dim || c.rotary_dim % 2 != 0) {
    return t["partial_rotary_factor"].Error(StrCat("gives a rotary dim of ", c.rotary_dim,
                                                   " (odd, negative or over head_dim ", c.head_dim,
                                                   ")"));
  }
  return sdk::OkStatus();
}

}  // namespace

sdk::StatusOr<Qwen35Config> ParseQwen35Config(std::string_view config_json,
                                              const std::string& source) {
  OXI_ASSIGN_OR_RETURN(sdk::JsonDoc doc, sdk::JsonDoc::Parse(config_json, source));
  const Json root = doc.root();
  if (!root.is_object()) return root.Error("not a JSON object");
  Qwen35Config c;
  OXI_ASSIGN_OR_RETURN(c.model_type, root["model_type"].StringOr(""));
  Json t = root;
  if (c.model_type == "qwen3_5") {
    t = root["text_config"];
    if (!t.is_object()) return t.Error("a qwen3_5 checkpoint needs a text_config object");
  } else if (c.model_type != "qwen3_5_text") {
    if (c.model_type == "qwen3_5_moe" || c.model_type == "qwen3_5_moe_text") {
      return sdk::UnimplementedError(
          StrCat(source, ": Qwen 3.5 MoE checkpoints are not supported (dense only)"));
    }
    return root["model_type"].Error(StrCat("'", c.model_type, "' is not qwen3_5 / qwen3_5_text"));
  }
  OXI_RETURN_IF_ERROR(ReadInt(t, "vocab_size", &c.vocab_size, true));
  OXI_RETURN_IF_ERROR(ReadInt(t, "hidden_size", &c.hidden_size, true));
  OXI_RETURN_IF_ERROR(ReadInt(t, "intermediate_size", &c.intermediate_size, true));
  OXI_RETURN_IF_ERROR(ReadInt(t, "num_hidden_layers", &c.num_hidden_layers, true));
  OXI_RETURN_IF_ERROR(ReadInt(t, "num_attention_heads", &c.num_attention_heads, true));
  OXI_RETURN_IF_ERROR(ReadInt(t, "num_key_value_heads", &c.num_key_value_heads, true));
  // Qwen3_5TextConfig's defaults.
  c.head_dim = 256;
  c.linear_num_key_heads = 16;
  c.linear_num_value_heads = 32;
  c.linear_key_head_dim = 128;
  c.linear_value_head_dim = 128;
  OXI_RETURN_IF_ERROR(ReadInt(t, "head_dim", &c.head_dim));
  OXI_RETURN_IF_ERROR(ReadInt(t, "linear_num_key_heads", &c.linear_num_key_heads));
  OXI_RETURN_IF_ERROR(ReadInt(t, "linear_num_value_heads", &c.linear_num_value_heads));
  OXI_RETURN_IF_ERROR(ReadInt(t, "linear_key_head_dim", &c.linear_key_head_dim));
  OXI_RETURN_IF_ERROR(ReadInt(t, "linear_value_head_dim", &c.linear_value_head_dim));
  OXI_RETURN_IF_ERROR(ReadInt(t, "linear_conv_kernel_dim", &c.linear_conv_kernel_dim));
  OXI_RETURN_IF_ERROR(ReadInt(t, "max_position_embeddings", &c.max_position_embeddings));
  OXI_RETURN_IF_ERROR(ReadInt(t, "mtp_num_hidden_layers", &c.mtp_num_hidden_layers));
  OXI_RETURN_IF_ERROR(ReadNumber(t, "rms_norm_eps", &c.rms_norm_eps));
  OXI_RETURN_IF_ERROR(ReadBool(t, "attn_output_gate", &c.attn_output_gate));
  bool attention_bias = false;
  OXI_RETURN_IF_ERROR(ReadBool(t, "attention_bias", &attention_bias));
  // tie_word_embeddings: the top level of a qwen3_5 checkpoint says it; a text
  // config alone carries its own.
  OXI_RETURN_IF_ERROR(ReadBool(t, "tie_word_embeddings", &c.tie_word_embeddings));
  if (c.model_type == "qwen3_5") {
    OXI_RETURN_IF_ERROR(ReadBool(root, "tie_word_embeddings", &c.tie_word_embeddings));
  }
  OXI_ASSIGN_OR_RETURN(std::string act, t["hidden_act"].StringOr("silu"));
  if (act != "silu") {
    return sdk::UnimplementedError(StrCat(t["hidden_act"].where(), ": '", act, "'"));
  }
  if (!c.attn_output_gate) {
    return sdk::UnimplementedError(t["attn_output_gate"].where() + ": false");
  }
  // Some re-saves name the DeltaNet output gate's activation; Qwen 3.5 uses SiLU (swish).
  if (t["output_gate_type"].is_string()) {
    OXI_ASSIGN_OR_RETURN(std::string g, t["output_gate_type"].String());
    if (g != "swish" && g != "silu") {
      return sdk::UnimplementedError(StrCat(t["output_gate_type"].where(), ": '", g, "'"));
    }
  }
  if (attention_bias) return sdk::UnimplementedError(t["attention_bias"].where() + ": true");
  if (t["num_experts"].is_number()) {
    OXI_ASSIGN_OR_RETURN(double experts, t["num_experts"].Number());
    if (experts > 0) {
      return sdk::UnimplementedError(t["num_experts"].where() +
                                     ": MoE layers are not supported (dense only)");
    }
  }
  OXI_RETURN_IF_ERROR(ReadRope(t, &c));
  OXI_RETURN_IF_ERROR(ReadLayerTypes(t, &c));
  OXI_RETURN_IF_ERROR(ReadTokens(root, t, &c));
  OXI_RETURN_IF_ERROR(CheckSizes(t, c));
  return c;
}

}  // namespace qwen35
}  // namespace oxinfer
