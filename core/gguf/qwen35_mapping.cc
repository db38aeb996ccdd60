// llama.cpp's qwen35 architecture (convert_hf_to_gguf.py's Qwen3_5TextModel)
// back to a transformers Qwen 3.5 text checkpoint (model_type qwen3_5_text).
// What the converter did, undone here:
//   - every RMSNorm weight but the DeltaNet's got +1 (Qwen 3.5 scales by 1 + w);
//   - A_log became A = -exp(A_log);
//   - with fewer key than value heads, the value heads were reordered from
//     grouped by key head to tiled (in_proj_qkv's V rows, in_proj_z, in_proj_a
//     and _b, A_log, dt_bias, conv1d's V channels, out_proj's columns);
//   - the conv1d kernel [C, 1, K] was squeezed to [C, K];
//   - the MTP head became an extra block (nextn): left out, as the plugin does.
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/gguf/gguf_mapping.h"
#include "nlohmann/json.hpp"

namespace oxinfer::gguf {
namespace {

struct Dims {
  int64_t layers = 0, hidden = 0, vocab = 0;
  int64_t nk = 0, nv = 0, hk = 0, hv = 0;  // DeltaNet key / value heads and head sizes
};

// For value head h in transformers' order (grouped: h = k * r + j), the head
// the converter put there (tiled: j * nk + k).
std::vector<int64_t> GroupedFromTiled(const Dims& d) {
  const int64_t r = d.nv / d.nk;
  std::vector<int64_t> src(static_cast<size_t>(d.nv));
  for (int64_t h = 0; h < d.nv; ++h) src[h] = (h % r) * d.nk + h / r;
  return src;
}

// Rows in heads of `head` rows after `first` untouched rows.
std::vector<int64_t> HeadRows(const Dims& d, int64_t first, int64_t head) {
  std::vector<int64_t> heads = GroupedFromTiled(d), rows;
  for (int64_t i = 0; i < first; ++i) rows.push_back(i);
  for (int64_t h : heads) {
    for (int64_t i = 0; i < head; ++i) rows.push_back(first + h * head + i);
  }
  return rows;
}

absl::Status MapLayerTensor(GgufMapping& m, const Dims& d, const TensorInfo& t,
                            const std::string& p, const std::string& rest) {
  const bool reorder = d.nk != d.nv;
  const std::vector<int64_t> T = {t.rows(), t.cols()};  // transformers' [out, in]
  struct Plain {
    const char* gguf;
    const char* hf;
  };
  static const Plain kPlain[] = {{"ffn_gate.weight", "mlp.gate_proj.weight"},
                                 {"ffn_up.weight", "mlp.up_proj.weight"},
                                 {"ffn_down.weight", "mlp.down_proj.weight"},
                                 {"attn_q.weight", "self_attn.q_proj.weight"},
                                 {"attn_k.weight", "self_attn.k_proj.weight"},
                                 {"attn_v.weight", "self_attn.v_proj.weight"},
                                 {"attn_output.weight", "self_attn.o_proj.weight"},
                                 {"ssm_norm.weight", "linear_attn.norm.weight"}};
  for (const Plain& e : kPlain) {
    if (rest == e.gguf) {
      return m.AsIs(t, p + e.hf, rest == "ssm_norm.weight" ? std::vector<int64_t>{t.cols()} : T);
    }
  }
  static const Plain kShifted[] = {
      {"attn_norm.weight", "input_layernorm.weight"},
      {"post_attention_norm.weight", "post_attention_layernorm.weight"},
      {"attn_q_norm.weight", "self_attn.q_norm.weight"},
      {"attn_k_norm.weight", "self_attn.k_norm.weight"}};
  for (const Plain& e : kShifted) {
    if (rest != e.gguf) continue;
    absl::StatusOr<std::vector<float>> v = m.Floats(t);
    if (!v.ok()) return v.status();
    for (float& x : *v) x -= 1.0f;
    const int64_t n = static_cast<int64_t>(v->size());
    return m.Floats(p + e.hf, {n}, *std::move(v));
  }
  const std::string lin = p + "linear_attn.";
  if (rest == "attn_qkv.weight") {
    if (!reorder) return m.AsIs(t, lin + "in_proj_qkv.weight", T);
    return m.PermuteRows(t, lin + "in_proj_qkv.weight", T, HeadRows(d, 2 * d.nk * d.hk, d.hv));
  }
  if (rest == "attn_gate.weight") {
    if (!reorder) return m.AsIs(t, lin + "in_proj_z.weight", T);
    return m.PermuteRows(t, lin + "in_proj_z.weight", T, HeadRows(d, 0, d.hv));
  }
  if (rest == "ssm_alpha.weight" || rest == "ssm_beta.weight") {
    const std::string name =
        lin + (rest == "ssm_alpha.weight" ? "in_proj_a" : "in_proj_b") + ".weight";
    if (!reorder) return m.AsIs(t, name, T);
    return m.PermuteRows(t, name, T, HeadRows(d, 0, 1));
  }
  if (rest == "ssm_out.weight") {
    if (!reorder) return m.AsIs(t, lin + "out_proj.weight", T);
    return m.PermuteColumnGroups(t, lin + "out_proj.weight", T, d.hv, GroupedFromTiled(d));
  }
  if (rest == "ssm_conv1d.weight") {
    const std::vector<int64_t> shape = {t.rows(), 1, t.cols()};
    if (!reorder) return m.AsIs(t, lin + "conv1d.weight", shape);
    return m.PermuteRows(t, lin + "conv1d.weight", shape, HeadRows(d, 2 * d.nk * d.hk, d.hv));
  }
  if (rest == "ssm_a" || rest == "ssm_dt.bias") {
    absl::StatusOr<std::vector<float>> v = m.Floats(t);
    if (!v.ok()) return v.status();
    if (static_cast<int64_t>(v->size()) != d.nv) {
      return absl::InvalidArgumentError(absl::StrCat(m.source(), ": tensor '", t.name, "' has ",
                                                     v->size(), " values, not one per value head (",
                                                     d.nv, ")"));
    }
    if (rest == "ssm_a") {
      for (float& x : *v) {
        if (!(x < 0)) {
          return absl::InvalidArgumentError(absl::StrCat(m.source(), ": tensor '", t.name,
                                                         "': A = -exp(A_log) must be negative"));
        }
        x = std::log(-x);
      }
    }
    std::vector<float> out(v->size());
    const std::vector<int64_t> src = reorder ? GroupedFromTiled(d) : HeadRows(d, d.nv, 0);
    for (size_t h = 0; h < out.size(); ++h) out[h] = (*v)[src[h]];
    return m.Floats(lin + (rest == "ssm_a" ? "A_log" : "dt_bias"), {d.nv}, std::move(out));
  }
  return absl::InvalidArgumentError(
      absl::StrCat(m.source(), ": tensor '", t.name, "' is not one of llama.cpp's qwen35 tensors"));
}

}  // namespace

absl::Status MapQwen35(GgufMapping& m, GgufCheckpoint* out) {
  const std::string a = "qwen35.";
  Dims d;
  absl::StatusOr<int64_t> blocks = m.Int(a + "block_count");
  if (!blocks.ok()) return blocks.status();
  absl::StatusOr<int64_t> nextn = m.IntOr(a + "nextn_predict_layers", 0);
  if (!nextn.ok()) return nextn.status();
  d.layers = *blocks - *nextn;
  if (d.layers <= 0) return m.KeyError(a + "block_count", "no layers besides the MTP head");
  absl::StatusOr<const TensorInfo*> embd = m.Get("token_embd.weight");
  if (!embd.ok()) return embd.status();
  d.hidden = (*embd)->cols();
  d.vocab = (*embd)->rows();

  nlohmann::json t;
  t["model_type"] = "qwen3_5_text";
  t["architectures"] = {"Qwen3_5ForCausalLM"};
  t["vocab_size"] = d.vocab;
  t["num_hidden_layers"] = d.layers;
  const struct {
    const char* gguf;
    const char* hf;
  } kInts[] = {{"embedding_length", "hidden_size"},
               {"attention.head_count", "num_attention_heads"},
               {"attention.key_length", "head_dim"},
               {"ssm.conv_kernel", "linear_conv_kernel_dim"},
               {"ssm.state_size", "linear_key_head_dim"},
               {"ssm.group_count", "linear_num_key_heads"},
               {"ssm.time_step_rank", "linear_num_value_heads"},
               {"context_length", "max_position_embeddings"}};
  for (const auto& k : kInts) {
    absl::StatusOr<int64_t> v = m.Int(a + k.gguf);
    if (!v.ok()) return v.status();
    if (*v <= 0) return m.KeyError(a + k.gguf, "must be positive");
    t[k.hf] = *v;
  }
  if (t["hidden_size"].get<int64_t>() != d.hidden) {
    return m.KeyError(a + "embedding_length", "differs from token_embd.weight's row length");
  }
  for (const char* key : {"feed_forward_length", "attention.head_count_kv"}) {
    absl::StatusOr<std::vector<int64_t>> v = m.PerLayerInts(a + key, *blocks);
    if (!v.ok()) return v.status();
    for (int64_t x : *v) {
      if (x != (*v)[0] || x <= 0) return m.KeyError(a + key, "differs between layers (dense only)");
    }
    t[std::string(key) == "feed_forward_length" ? "intermediate_size" : "num_key_value_heads"] =
        (*v)[0];
  }
  d.nk = t["linear_num_key_heads"];
  d.nv = t["linear_num_value_heads"];
  d.hk = t["linear_key_head_dim"];
  absl::StatusOr<int64_t> inner = m.Int(a + "ssm.inner_size");
  if (!inner.ok()) return inner.status();
  if (d.nv % d.nk != 0 || *inner % d.nv != 0 || *inner <= 0) {
    return m.KeyError(a + "ssm.inner_size",
                      "is not a multiple of the value heads, or the value "
                      "heads of the key heads");
  }
  d.hv = *inner / d.nv;
  t["linear_value_head_dim"] = d.hv;
  absl::StatusOr<double> eps = m.Number(a + "attention.layer_norm_rms_epsilon");
  if (!eps.ok()) return eps.status();
  t["rms_norm_eps"] = *eps;
  absl::StatusOr<double> theta = m.Number(a + "rope.freq_base");
  if (!theta.ok()) return theta.status();
  absl::StatusOr<int64_t> rot = m.Int(a + "rope.dimension_count");
  if (!rot.ok()) return rot.status();
  nlohmann::json rope = {
      {"rope_type", "default"},
      {"rope_theta", *theta},
      {"partial_rotary_factor", static_cast<double>(*rot) / t["head_dim"].get<double>()}};
  if (m.Has(a + "rope.dimension_sections")) {
    absl::StatusOr<std::vector<int64_t>> s = m.PerLayerInts(a + "rope.dimension_sections", 4);
    if (!s.ok()) return s.status();
    rope["mrope_section"] = {(*s)[0], (*s)[1], (*s)[2]};
    rope["mrope_interleaved"] = true;
  }
  t["rope_parameters"] = rope;
  absl::StatusOr<std::vector<bool>> recurrent = m.Bools(a + "attention.recurrent_layers");
  if (!recurrent.ok()) return recurrent.status();
  if (static_cast<int64_t>(recurrent->size()) < d.layers) {
    return m.KeyError(a + "attention.recurrent_layers", "has fewer entries than layers");
  }
  nlohmann::json types = nlohmann::json::array();
  for (int64_t i = 0; i < d.layers; ++i) {
    types.push_back((*recurrent)[i] ? "linear_attention" : "full_attention");
  }
  t["layer_types"] = types;
  t["hidden_act"] = "silu";
  t["attn_output_gate"] = true;
  t["attention_bias"] = false;
  t["tie_word_embeddings"] = m.Find("output.weight") == nullptr;
  if (m.Has("tokenizer.ggml.eos_token_id")) {
    absl::StatusOr<int64_t> eos = m.Int("tokenizer.ggml.eos_token_id");
    if (!eos.ok()) return eos.status();
    t["eos_token_id"] = *eos;
  }
  out->config_json = t.dump(2);
  if (!m.tensors()) return absl::OkStatus();

  for (const TensorInfo& info : out->header.tensors) {
    const std::vector<int64_t> T = {info.rows(), info.cols()};
    absl::Status s;
    std::string rest;
    const int64_t block = BlockIndex(info.name, &rest);
    if (info.name == "token_embd.weight") {
      s = m.AsIs(info, "model.embed_tokens.weight", T);
    } else if (info.name == "output.weight") {
      s = m.AsIs(info, "lm_head.weight", T);
    } else if (info.name == "output_norm.weight") {
      absl::StatusOr<std::vector<float>> v = m.Floats(info);
      if (!v.ok()) return v.status();
      for (float& x : *v) x -= 1.0f;
      const int64_t n = static_cast<int64_t>(v->size());
      s = m.Floats("model.norm.weight", {n}, *std::move(v));
    } else if (block >= d.layers && block < *blocks) {
      continue;  // the MTP head
    } else if (block >= 0 && block < d.layers) {
      s = MapLayerTensor(m, d, info, absl::StrCat("model.layers.", block, "."), rest);
    } else {
      s = absl::InvalidArgumentError(absl::StrCat(m.source(), ": tensor '", info.name,
                                                  "' is not one of llama.cpp's qwen35 tensors"));
    }
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace oxinfer::gguf
