// llama.cpp's gemma4 architecture (convert_hf_to_gguf.py's Gemma4Model) back
// to a transformers Gemma 4 text checkpoint (model_type gemma4_text, keys
// model.*). The converter changes no tensor's values (Gemma 4 norms scale by
// w, not 1 + w, so its norm shift is 0) and drops none of the text model's;
// what it does, undone here:
//   - names: llama.cpp's (blk.N.inp_gate = per_layer_input_gate, ...);
//   - the proportional RoPE of full layers became rope_freqs: 1 for the
//     rotated pairs, 1e30 for the rest (partial_rotary_factor is their share);
//   - full layers' head_dim / KV heads became key_length / head_count_kv
//     entries, sliding ones the _swa keys; the double-wide MLP of KV-shared
//     layers a per-layer feed_forward_length; attention_k_eq_v is not
//     recorded (full layers without attn_v);
//   - K-quant embedding tables: served as float32 (the plugin looks rows up
//     in float, Q8_0 and Q4_0 tables only).
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/gguf/gguf_mapping.h"
#include "nlohmann/json.hpp"

namespace oxinfer::gguf {
namespace {

struct Name {
  const char* gguf;
  const char* hf;
};

// Block tensors: llama.cpp name -> transformers name under model.layers.N.
constexpr Name kBlock[] = {
    {"attn_norm.weight", "input_layernorm.weight"},
    {"layer_output_scale.weight", "layer_scalar"},
    {"ffn_down.weight", "mlp.down_proj.weight"},
    {"ffn_gate.weight", "mlp.gate_proj.weight"},
    {"ffn_up.weight", "mlp.up_proj.weight"},
    {"inp_gate.weight", "per_layer_input_gate.weight"},
    {"proj.weight", "per_layer_projection.weight"},
    {"post_attention_norm.weight", "post_attention_layernorm.weight"},
    {"post_ffw_norm.weight", "post_feedforward_layernorm.weight"},
    {"post_norm.weight", "post_per_layer_input_norm.weight"},
    {"ffn_norm.weight", "pre_feedforward_layernorm.weight"},
    {"attn_k_norm.weight", "self_attn.k_norm.weight"},
    {"attn_q_norm.weight", "self_attn.q_norm.weight"},
    {"attn_k.weight", "self_attn.k_proj.weight"},
    {"attn_v.weight", "self_attn.v_proj.weight"},
    {"attn_q.weight", "self_attn.q_proj.weight"},
    {"attn_output.weight", "self_attn.o_proj.weight"},
};

constexpr Name kGlobal[] = {
    {"token_embd.weight", "model.embed_tokens.weight"},
    {"per_layer_token_embd.weight", "model.embed_tokens_per_layer.weight"},
    {"output_norm.weight", "model.norm.weight"},
    {"per_layer_model_proj.weight", "model.per_layer_model_projection.weight"},
    {"per_layer_proj_norm.weight", "model.per_layer_projection_norm.weight"},
    {"output.weight", "lm_head.weight"},
};

// transformers' shape: ggml's ne reversed.
std::vector<int64_t> HfShape(const TensorInfo& t) { return {t.ne.rbegin(), t.ne.rend()}; }

absl::Status Positive(GgufMapping& m, const std::string& key, int64_t v) {
  if (v <= 0) return m.KeyError(key, "must be positive");
  return absl::OkStatus();
}

// The share of rotated pairs of the full layers' proportional RoPE, from
// rope_freqs (1 rotated, 1e30 not: how the converter encodes the
// unrotated pairs as frequency factors).
absl::StatusOr<double> PartialRotaryFactor(GgufMapping& m, int64_t head_dim_full) {
  absl::StatusOr<const TensorInfo*> t = m.Get("rope_freqs.weight");
  if (!t.ok()) return t.status();
  absl::StatusOr<std::vector<float>> v = m.Floats(**t);
  if (!v.ok()) return v.status();
  if (static_cast<int64_t>(v->size()) * 2 != head_dim_full) {
    return absl::InvalidArgumentError(absl::StrCat(
        m.source(), ": tensor 'rope_freqs.weight' has ", v->size(),
        " values, not one per pair of the full layers' head (", head_dim_full / 2, ")"));
  }
  size_t rotated = 0;
  while (rotated < v->size() && (*v)[rotated] == 1.0f) ++rotated;
  for (size_t i = rotated; i < v->size(); ++i) {
    if (!((*v)[i] >= 1e29f)) {
      return absl::InvalidArgumentError(
          absl::StrCat(m.source(),
                       ": tensor 'rope_freqs.weight': not the converter's "
                       "proportional RoPE (1 for the rotated pairs, then 1e30)"));
    }
  }
  return static_cast<double>(rotated) / static_cast<double>(v->size());
}

}  // namespace

absl::Status MapGemma4(GgufMapping& m, GgufCheckpoint* out) {
  const std::string a = "gemma4.";
  absl::StatusOr<int64_t> layers = m.Int(a + "block_count");
  if (!layers.ok()) return layers.status();
  if (absl::Status s = Positive(m, a + "block_count", *layers); !s.ok()) return s;
  const int64_t n = *layers;
  absl::StatusOr<const TensorInfo*> embd = m.Get("token_embd.weight");
  if (!embd.ok()) return embd.status();

  nlohmann::json t;
  t["model_type"] = "gemma4_text";
  t["architectures"] = {"Gemma4ForCausalLM"};
  t["vocab_size"] = (*embd)->rows();
  t["num_hidden_layers"] = n;
  const struct {
    const char* gguf;
    const char* hf;
  } kInts[] = {{"embedding_length", "hidden_size"},
               {"attention.head_count", "num_attention_heads"},
               {"attention.key_length", "global_head_dim"},
               {"attention.key_length_swa", "head_dim"},
               {"attention.sliding_window", "sliding_window"},
               {"context_length", "max_position_embeddings"}};
  for (const auto& k : kInts) {
    absl::StatusOr<int64_t> v = m.Int(a + k.gguf);
    if (!v.ok()) return v.status();
    if (absl::Status s = Positive(m, a + k.gguf, *v); !s.ok()) return s;
    t[k.hf] = *v;
  }
  if (t["hidden_size"].get<int64_t>() != (*embd)->cols()) {
    return m.KeyError(a + "embedding_length", "differs from token_embd.weight's row length");
  }
  for (const char* k : {"attention.value_length", "attention.value_length_swa"}) {
    const std::string key_key = std::string(k) == "attention.value_length"
                                    ? "attention.key_length"
                                    : "attention.key_length_swa";
    absl::StatusOr<int64_t> v = m.IntOr(a + k, 0);
    if (!v.ok()) return v.status();
    absl::StatusOr<int64_t> key = m.Int(a + key_key);
    if (*v != 0 && *v != *key) return m.KeyError(a + k, "differs from " + a + key_key);
  }
  const int64_t head_full = t["global_head_dim"], head_swa = t["head_dim"];

  absl::StatusOr<std::vector<bool>> swa = m.Bools(a + "attention.sliding_window_pattern");
  if (!swa.ok()) return swa.status();
  if (static_cast<int64_t>(swa->size()) != n) {
    return m.KeyError(a + "attention.sliding_window_pattern", "needs one entry per layer");
  }
  nlohmann::json types = nlohmann::json::array();
  for (bool s : *swa) types.push_back(s ? "sliding_attention" : "full_attention");
  t["layer_types"] = types;

  absl::StatusOr<int64_t> shared = m.Int(a + "attention.shared_kv_layers");
  if (!shared.ok()) return shared.status();
  if (*shared < 0 || *shared >= n) {
    return m.KeyError(a + "attention.shared_kv_layers", "must be in [0, block_count)");
  }
  t["num_kv_shared_layers"] = *shared;
  const int64_t first_shared = n - *shared;

  // The MLP width: one value, or the per-layer list the converter writes for
  // a double-wide MLP on the KV-shared layers.
  absl::StatusOr<std::vector<int64_t>> ff = m.PerLayerInts(a + "feed_forward_length", n);
  if (!ff.ok()) return ff.status();
  const int64_t width = (*ff)[0];
  bool double_wide = false;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t want = i >= first_shared && (*ff)[i] != width ? 2 * width : width;
    if ((*ff)[i] != want || width <= 0) {
      return m.KeyError(a + "feed_forward_length",
                        "is not one width (twice it on the KV-shared layers at most)");
    }
    double_wide = double_wide || want != width;
  }
  t["intermediate_size"] = width;
  t["use_double_wide_mlp"] = double_wide;

  // KV heads per layer: the sliding value, and each full layer's (with its
  // head_dim) as per_layer_config, which the plugin takes as the whole truth.
  absl::StatusOr<std::vector<int64_t>> kv = m.PerLayerInts(a + "attention.head_count_kv", n);
  if (!kv.ok()) return kv.status();
  int64_t kv_swa = -1, kv_full = -1;
  nlohmann::json per_layer = nlohmann::json::object();
  for (int64_t i = 0; i < n; ++i) {
    int64_t& slot = (*swa)[i] ? kv_swa : kv_full;
    if ((*kv)[i] <= 0 || (slot >= 0 && slot != (*kv)[i])) {
      return m.KeyError(a + "attention.head_count_kv",
                        "differs between layers of one type (or is not positive)");
    }
    slot = (*kv)[i];
    if (!(*swa)[i]) {
      per_layer[std::to_string(i)] = {{"head_dim", head_full}, {"num_key_value_heads", (*kv)[i]}};
    }
  }
  t["num_key_value_heads"] = kv_swa >= 0 ? kv_swa : kv_full;
  t["per_layer_config"] = per_layer;
  // k = v: the full layers that compute their own K/V carry no attn_v.
  bool k_eq_v = false;
  for (int64_t i = 0; i < first_shared; ++i) {
    const std::string b = absl::StrCat("blk.", i, ".");
    if (!(*swa)[i] && m.Find(b + "attn_k.weight") != nullptr &&
        m.Find(b + "attn_v.weight") == nullptr) {
      k_eq_v = true;
    }
  }
  t["attention_k_eq_v"] = k_eq_v;
  if (k_eq_v && kv_full > 0) t["num_global_key_value_heads"] = kv_full;

  absl::StatusOr<int64_t> ple = m.IntOr(a + "embedding_length_per_layer_input", 0);
  if (!ple.ok()) return ple.status();
  t["hidden_size_per_layer_input"] = *ple;
  if (*ple > 0) {
    absl::StatusOr<const TensorInfo*> pl = m.Get("per_layer_token_embd.weight");
    if (!pl.ok()) return pl.status();
    if ((*pl)->cols() != *ple * n) {
      return m.KeyError(a + "embedding_length_per_layer_input",
                        "times block_count differs from per_layer_token_embd.weight's rows");
    }
    t["vocab_size_per_layer_input"] = (*pl)->rows();
  }

  absl::StatusOr<double> eps = m.Number(a + "attention.layer_norm_rms_epsilon");
  if (!eps.ok()) return eps.status();
  t["rms_norm_eps"] = *eps;
  if (m.Has(a + "final_logit_softcapping")) {
    absl::StatusOr<double> cap = m.Number(a + "final_logit_softcapping");
    if (!cap.ok()) return cap.status();
    t["final_logit_softcapping"] = *cap;
  }

  absl::StatusOr<double> theta = m.Number(a + "rope.freq_base");
  if (!theta.ok()) return theta.status();
  absl::StatusOr<double> theta_swa = m.Number(a + "rope.freq_base_swa");
  if (!theta_swa.ok()) return theta_swa.status();
  absl::StatusOr<int64_t> rot_swa = m.IntOr(a + "rope.dimension_count_swa", head_swa);
  if (!rot_swa.ok()) return rot_swa.status();
  if (*rot_swa <= 0 || *rot_swa > head_swa) {
    return m.KeyError(a + "rope.dimension_count_swa", "must be in (0, key_length_swa]");
  }
  absl::StatusOr<double> partial = PartialRotaryFactor(m, head_full);
  if (!partial.ok()) return partial.status();
  nlohmann::json sliding = {{"rope_type", "default"}, {"rope_theta", *theta_swa}};
  if (*rot_swa != head_swa) {
    sliding["partial_rotary_factor"] = static_cast<double>(*rot_swa) / head_swa;
  }
  t["rope_parameters"] = {{"full_attention",
                           {{"rope_type", "proportional"},
                            {"rope_theta", *theta},
                            {"partial_rotary_factor", *partial}}},
                          {"sliding_attention", sliding}};
  t["hidden_activation"] = "gelu_pytorch_tanh";
  t["attention_bias"] = false;
  t["enable_moe_block"] = false;
  t["tie_word_embeddings"] = m.Find("output.weight") == nullptr;
  for (const char* key : {"bos_token_id", "padding_token_id"}) {
    const std::string k = std::string("tokenizer.ggml.") + key;
    if (!m.Has(k)) continue;
    absl::StatusOr<int64_t> id = m.Int(k);
    if (!id.ok()) return id.status();
    t[std::string(key) == "bos_token_id" ? "bos_token_id" : "pad_token_id"] = *id;
  }
  out->config_json = t.dump(2);  // eos_token_id: added with the tokenizer's stop tokens
  if (!m.tensors()) return absl::OkStatus();

  for (const TensorInfo& info : out->header.tensors) {
    std::string rest, hf;
    const int64_t block = BlockIndex(info.name, &rest);
    if (info.name == "rope_freqs.weight") continue;  // in rope_parameters
    if (block >= 0 && block < n) {
      for (const Name& e : kBlock) {
        if (rest == e.gguf) hf = absl::StrCat("model.layers.", block, ".", e.hf);
      }
    } else if (block < 0) {
      for (const Name& e : kGlobal) {
        if (info.name == e.gguf) hf = e.hf;
      }
    }
    if (hf.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          m.source(), ": tensor '", info.name, "' is not one of llama.cpp's gemma4 text tensors"));
    }
    const bool table =
        info.name == "token_embd.weight" || info.name == "per_layer_token_embd.weight";
    if (table && info.type != TensorType::kF32 && info.type != TensorType::kF16 &&
        info.type != TensorType::kBF16 && info.type != TensorType::kQ8_0 &&
        info.type != TensorType::kQ4_0) {
      // Rows are looked up (GET_ROWS) in float, Q8_0 and Q4_0 tables; a
      // K-quant table is dequantised here (to Q8_0 by default: the per-layer
      // table of E2B is 4.7 GB as float32 against 1.2 GB as Q8_0).
      if (absl::Status s = m.DequantisedRows(info, hf, HfShape(info), {}); !s.ok()) return s;
      continue;
    }
    if (absl::Status s = m.AsIs(info, hf, HfShape(info)); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace oxinfer::gguf
