#include "plugins/models/gemma4/gemma4_weights.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>

namespace oxinfer {
namespace gemma4 {
namespace {

// Looks tensors up under the checkpoint's prefix and makes them resident.
class Loader {
 public:
  Loader(const sdk::Compute& cx, const sdk::Weights& file, std::string prefix, oxi_dtype dtype)
      : cx_(cx), file_(file), prefix_(std::move(prefix)), dtype_(dtype) {}

  // A linear layer [n][k], held as the requested weight type.
  sdk::StatusOr<sdk::OwnedTensor> Linear(const std::string& name, int64_t n, int64_t k) const {
    return Matrix(name, n, k, dtype_);
  }
  // A matrix [n][k] held as `dtype` (OXI_DTYPE_INVALID: as stored); stored
  // Q8_0 / Q4_0 blocks (a GGUF file's) are taken as they are, as Qwen 3.5's.
  sdk::StatusOr<sdk::OwnedTensor> Matrix(const std::string& name, int64_t n, int64_t k,
                                         oxi_dtype dtype) const {
    OXI_ASSIGN_OR_RETURN(const oxi_weight_tensor* t,
                         file_.Get(prefix_ + name, {n, k}, /*float_only=*/false));
    return cx_.LoadWeight(file_, t, n, k, dtype);
  }
  // The Q8_0 copy of the tied head (of `embed`): lm_head.weight where the
  // checkpoint has it (a --save-quantized folder), else made and recorded so.
  sdk::StatusOr<sdk::OwnedTensor> TiedHead(const std::string& embed, int64_t n, int64_t k) const {
    static constexpr const char* kHead = "lm_head.weight";
    if (file_.Has(kHead)) {
      OXI_ASSIGN_OR_RETURN(const oxi_weight_tensor* t, file_.Get(kHead, {n, k}, false));
      return cx_.LoadWeight(file_, t, n, k, OXI_DTYPE_Q8_0);
    }
    OXI_ASSIGN_OR_RETURN(const oxi_weight_tensor* t,
                         file_.Get(prefix_ + embed, {n, k}, /*float_only=*/false));
    return cx_.LoadWeight(file_, t, n, k, OXI_DTYPE_Q8_0, /*in_place=*/true, kHead);
  }
  // A vector [n] as a resident [1][n] f32 row.
  sdk::StatusOr<sdk::OwnedTensor> Vector(const std::string& name, int64_t n) const {
    OXI_ASSIGN_OR_RETURN(std::vector<float> v, Floats(name, n));
    return cx_.Upload(v);
  }
  sdk::StatusOr<std::vector<float>> Floats(const std::string& name, int64_t n) const {
    OXI_ASSIGN_OR_RETURN(std::vector<float> v, file_.GetFloats(prefix_ + name, {n}));
    file_.Release(file_.Find(prefix_ + name));
    return v;
  }
  bool Has(const std::string& name) const { return file_.Has(prefix_ + name); }

 private:
  const sdk::Compute& cx_;
  const sdk::Weights& file_;
  const std::string prefix_;
  const oxi_dtype dtype_;
};

sdk::Status LoadLayer(const Loader& ld, const Gemma4Config& cfg, int i, LayerWeights* l) {
  const LayerConfig& c = cfg.layers[i];
  const std::string p = sdk::StrCat("layers.", i, ".");
  const int64_t H = cfg.hidden_size, P = cfg.hidden_size_per_layer_input;
  const int64_t hd = c.head_dim, nq = cfg.num_heads, nkv = c.num_kv_heads;
  const int64_t I = c.intermediate_size;
  OXI_ASSIGN_OR_RETURN(l->q_proj, ld.Linear(p + "self_attn.q_proj.weight", nq * hd, H));
  OXI_ASSIGN_OR_RETURN(l->o_proj, ld.Linear(p + "self_attn.o_proj.weight", H, nq * hd));
  OXI_ASSIGN_OR_RETURN(l->q_norm, ld.Vector(p + "self_attn.q_norm.weight", hd));
  if (!c.kv_shared) {  // shared layers' k/v weights, when present, are unused
    OXI_ASSIGN_OR_RETURN(l->k_proj, ld.Linear(p + "self_attn.k_proj.weight", nkv * hd, H));
    if (!c.k_eq_v) {
      OXI_ASSIGN_OR_RETURN(l->v_proj, ld.Linear(p + "self_attn.v_proj.weight", nkv * hd, H));
    }
    OXI_ASSIGN_OR_RETURN(l->k_norm, ld.Vector(p + "self_attn.k_norm.weight", hd));
  }
  OXI_ASSIGN_OR_RETURN(l->gate_proj, ld.Linear(p + "mlp.gate_proj.weight", I, H));
  OXI_ASSIGN_OR_RETURN(l->up_proj, ld.Linear(p + "mlp.up_proj.weight", I, H));
  OXI_ASSIGN_OR_RETURN(l->down_proj, ld.Linear(p + "mlp.down_proj.weight", H, I));
  OXI_ASSIGN_OR_RETURN(l->input_norm, ld.Vector(p + "input_layernorm.weight", H));
  OXI_ASSIGN_OR_RETURN(l->post_attn_norm, ld.Vector(p + "post_attention_layernorm.weight", H));
  OXI_ASSIGN_OR_RETURN(l->pre_ff_norm, ld.Vector(p + "pre_feedforward_layernorm.weight", H));
  OXI_ASSIGN_OR_RETURN(l->post_ff_norm, ld.Vector(p + "post_feedforward_layernorm.weight", H));
  if (P > 0) {
    OXI_ASSIGN_OR_RETURN(l->per_layer_input_gate,
                         ld.Linear(p + "per_layer_input_gate.weight", P, H));
    OXI_ASSIGN_OR_RETURN(l->per_layer_projection,
                         ld.Linear(p + "per_layer_projection.weight", H, P));
    OXI_ASSIGN_OR_RETURN(l->post_per_layer_input_norm,
                         ld.Vector(p + "post_per_layer_input_norm.weight", H));
  }
  if (ld.Has(p + "layer_scalar")) {
    OXI_ASSIGN_OR_RETURN(std::vector<float> s, ld.Floats(p + "layer_scalar", 1));
    l->layer_scalar = s[0];
  }
  return sdk::OkStatus();
}

}  // namespace

sdk::Status LoadGemma4Weights(const sdk::Compute& cx, const sdk::OpenParams& params,
                              const Gemma4Config& cfg, Gemma4Weights* w, bool matrix_head) {
  OXI_ASSIGN_OR_RETURN(w->file, sdk::Weights::Open(params.model_dir, params.use_mmap));
  w->file.RecordInto(params.recorder);
  std::string prefix;
  if (w->file.Has("model.language_model.embed_tokens.weight")) {
    prefix = "model.language_model.";
  } else if (w->file.Has("model.embed_tokens.weight")) {
    prefix = "model.";
  } else {
    return sdk::NotFoundError(sdk::StrCat(
        "gemma4: no model.language_model.embed_tokens.weight (or model.embed_tokens.weight) in '",
        w->file.source(), "'"));
  }
  const oxi_dtype dtype = params.weight_dtype;
  const Loader ld(cx, w->file, prefix, dtype);
  const int64_t H = cfg.hidden_size, L = cfg.num_layers, P = cfg.hidden_size_per_layer_input;

  // Embedding tables stay as stored: they are read a row at a time.
  OXI_ASSIGN_OR_RETURN(w->embed,
                       ld.Matrix("embed_tokens.weight", cfg.vocab_size, H, OXI_DTYPE_INVALID));
  if (matrix_head && (dtype == OXI_DTYPE_Q8_0 || dtype == OXI_DTYPE_Q4_0)) {
    // Under q8 and q4 the tied head gets its own Q8_0 copy: it is the largest
    // matrix read per token, and llama.cpp likewise keeps the output matrix
    // at 6 bits or more.
    // A --save-quantized folder holds that copy as lm_head.weight.
    OXI_ASSIGN_OR_RETURN(w->lm_head_q8, ld.TiedHead("embed_tokens.weight", cfg.vocab_size, H));
  }
  if (P > 0) {
    OXI_ASSIGN_OR_RETURN(w->embed_per_layer,
                         ld.Matrix("embed_tokens_per_layer.weight", cfg.vocab_size_per_layer_input,
                                   L * P, OXI_DTYPE_INVALID));
    OXI_ASSIGN_OR_RETURN(w->per_layer_model_projection,
                         ld.Linear("per_layer_model_projection.weight", L * P, H));
    OXI_ASSIGN_OR_RETURN(w->per_layer_projection_norm,
                         ld.Vector("per_layer_projection_norm.weight", P));
  }
  OXI_ASSIGN_OR_RETURN(w->final_norm, ld.Vector("norm.weight", H));
  const float cap = static_cast<float>(cfg.final_logit_softcapping);
  OXI_ASSIGN_OR_RETURN(w->softcap, cx.Upload(&cap, OXI_DTYPE_F32, 1, 1));

  // One RoPE table per (layer type, head dim).
  std::map<std::pair<bool, int>, int> tables;
  w->layers.resize(L);
  for (int i = 0; i < L; ++i) {
    params.Progress(i, L, "gemma4: loading layers");
    LayerWeights& l = w->layers[i];
    OXI_RETURN_IF_ERROR(LoadLayer(ld, cfg, i, &l).WithContext(sdk::StrCat("gemma4: layer ", i)));
    const LayerConfig& c = cfg.layers[i];
    const auto key = std::make_pair(c.sliding, c.head_dim);
    auto it = tables.find(key);
    if (it == tables.end()) {
      OXI_ASSIGN_OR_RETURN(
          sdk::OwnedTensor t,
          cx.Upload(RopeInvFreq(c.sliding ? cfg.rope_sliding : cfg.rope_full, c.head_dim)));
      it = tables.emplace(key, static_cast<int>(w->rope_tables.size())).first;
      w->rope_tables.push_back(std::move(t));
    }
    l.rope_table = it->second;
  }
  params.Progress(L, L, "gemma4: loading layers");
  return sdk::OkStatus();
}

}  // namespace gemma4
}  // namespace oxinfer
