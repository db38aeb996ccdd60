#include "plugins/models/qwen35/qwen35_weights.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "oxinfer/sdk/common.hpp"

namespace oxinfer {
namespace qwen35 {
namespace {

using sdk::StrCat;

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

class Loader {
 public:
  static constexpr const char* kHead = "lm_head.weight";
  Loader(const sdk::Compute& cx, const sdk::Weights& file, oxi_dtype quant)
      : cx_(cx), file_(file), quant_(quant) {}

  // A matrix [rows][cols], held as `want` (INVALID: as stored). Stored Q8_0 /
  // Q4_0 blocks (a GGUF file's, or a --save-quantized folder's) are taken too.
  sdk::StatusOr<sdk::OwnedTensor> Matrix(const std::string& name, int64_t rows, int64_t cols,
                                         oxi_dtype want) const {
    OXI_ASSIGN_OR_RETURN(const oxi_weight_tensor* t,
                         file_.Get(name, {rows, cols}, /*float_only=*/false));
    return cx_.LoadWeight(file_, t, rows, cols, want);
  }
  // The Q8_0 copy of a tied head (of `embed`): lm_head.weight where the
  // checkpoint has it (a --save-quantized folder), else made and recorded so.
  sdk::StatusOr<sdk::OwnedTensor> TiedHead(const std::string& embed, int64_t rows,
                                           int64_t cols) const {
    if (file_.Has(kHead)) return Matrix(kHead, rows, cols, OXI_DTYPE_Q8_0);
    OXI_ASSIGN_OR_RETURN(const oxi_weight_tensor* t,
                         file_.Get(embed, {rows, cols}, /*float_only=*/false));
    return cx_.LoadWeight(file_, t, rows, cols, OXI_DTYPE_Q8_0, /*in_place=*/true, kHead);
  }
  // A matrix the model quantises when asked (Q8_0 / Q4_0) or converts (F32...).
  sdk::StatusOr<sdk::OwnedTensor> Quantised(const std::string& name, int64_t rows,
                                            int64_t cols) const {
    return Matrix(name, rows, cols, quant_);
  }
  // A float tensor of the given shape as a resident f32 [rows][cols].
  sdk::StatusOr<sdk::OwnedTensor> Floats(const std::string& name,
                                         std::initializer_list<int64_t> shape, int64_t rows,
                                         int64_t cols) const {
    OXI_ASSIGN_OR_RETURN(std::vector<float> v, file_.GetFloats(name, shape));
    file_.Release(file_.Find(name));
    return cx_.Upload(v.data(), OXI_DTYPE_F32, rows, cols);
  }
  sdk::StatusOr<sdk::OwnedTensor> Vector(const std::string& name, int64_t n) const {
    return Floats(name, {n}, 1, n);
  }
  // -exp(A_log): the decay rate of each value head, as transformers computes it.
  sdk::StatusOr<sdk::OwnedTensor> NegExp(const std::string& name, int64_t n) const {
    OXI_ASSIGN_OR_RETURN(std::vector<float> v, file_.GetFloats(name, {n}));
    for (float& x : v) x = -std::exp(x);
    return cx_.Upload(v.data(), OXI_DTYPE_F32, 1, n);
  }

 private:
  const sdk::Compute& cx_;
  const sdk::Weights& file_;
  oxi_dtype quant_;
};

sdk::Status LoadDeltaNet(const Loader& ld, const Qwen35Config& c, const std::string& p,
                         DeltaNetWeights* d) {
  const int64_t H = c.hidden_size, nv = c.linear_num_value_heads;
  OXI_ASSIGN_OR_RETURN(d->in_proj_qkv, ld.Quantised(p + "in_proj_qkv.weight", c.conv_dim(), H));
  OXI_ASSIGN_OR_RETURN(d->in_proj_z, ld.Quantised(p + "in_proj_z.weight", c.value_dim(), H));
  // b and a are a few rows: kept as stored (they set every head's gate).
  OXI_ASSIGN_OR_RETURN(d->in_proj_b, ld.Matrix(p + "in_proj_b.weight", nv, H, OXI_DTYPE_INVALID));
  OXI_ASSIGN_OR_RETURN(d->in_proj_a, ld.Matrix(p + "in_proj_a.weight", nv, H, OXI_DTYPE_INVALID));
  OXI_ASSIGN_OR_RETURN(d->out_proj, ld.Quantised(p + "out_proj.weight", H, c.value_dim()));
  const int64_t K = c.linear_conv_kernel_dim;
  OXI_ASSIGN_OR_RETURN(d->conv_w,
                       ld.Floats(p + "conv1d.weight", {c.conv_dim(), 1, K}, c.conv_dim(), K));
  OXI_ASSIGN_OR_RETURN(d->neg_exp_a, ld.NegExp(p + "A_log", nv));
  OXI_ASSIGN_OR_RETURN(d->dt_bias, ld.Vector(p + "dt_bias", nv));
  OXI_ASSIGN_OR_RETURN(d->norm, ld.Vector(p + "norm.weight", c.linear_value_head_dim));
  return sdk::OkStatus();
}

sdk::Status LoadAttention(const Loader& ld, const Qwen35Config& c, const std::string& p,
                          AttentionWeights* a) {
  const int64_t H = c.hidden_size, hd = c.head_dim;
  const int64_t nh = c.num_attention_heads, nkv = c.num_key_value_heads;
  OXI_ASSIGN_OR_RETURN(a->q_proj, ld.Quantised(p + "q_proj.weight", 2 * nh * hd, H));
  OXI_ASSIGN_OR_RETURN(a->k_proj, ld.Quantised(p + "k_proj.weight", nkv * hd, H));
  OXI_ASSIGN_OR_RETURN(a->v_proj, ld.Quantised(p + "v_proj.weight", nkv * hd, H));
  OXI_ASSIGN_OR_RETURN(a->o_proj, ld.Quantised(p + "o_proj.weight", H, nh * hd));
  OXI_ASSIGN_OR_RETURN(a->q_norm, ld.Vector(p + "q_norm.weight", hd));
  OXI_ASSIGN_OR_RETURN(a->k_norm, ld.Vector(p + "k_norm.weight", hd));
  return sdk::OkStatus();
}

sdk::Status LoadLayerCommon(const Loader& ld, const Qwen35Config& c, const std::string& p,
                            LayerWeights* L) {
  const int64_t H = c.hidden_size;
  OXI_ASSIGN_OR_RETURN(L->input_norm, ld.Vector(p + "input_layernorm.weight", H));
  OXI_ASSIGN_OR_RETURN(L->post_norm, ld.Vector(p + "post_attention_layernorm.weight", H));
  OXI_ASSIGN_OR_RETURN(L->gate_proj,
                       ld.Quantised(p + "mlp.gate_proj.weight", c.intermediate_size, H));
  OXI_ASSIGN_OR_RETURN(L->up_proj, ld.Quantised(p + "mlp.up_proj.weight", c.intermediate_size, H));
  OXI_ASSIGN_OR_RETURN(L->down_proj,
                       ld.Quantised(p + "mlp.down_proj.weight", H, c.intermediate_size));
  return sdk::OkStatus();
}

// The MTP head of the published checkpoints: mtp.fc, its three norms and
// mtp.layers.0 (a full-attention decoder layer shaped as the main ones).
constexpr const char* kMtpNeeded[] = {"mtp.fc.weight",
                                      "mtp.pre_fc_norm_embedding.weight",
                                      "mtp.pre_fc_norm_hidden.weight",
                                      "mtp.norm.weight",
                                      "mtp.layers.0.input_layernorm.weight",
                                      "mtp.layers.0.post_attention_layernorm.weight",
                                      "mtp.layers.0.mlp.gate_proj.weight",
                                      "mtp.layers.0.mlp.up_proj.weight",
                                      "mtp.layers.0.mlp.down_proj.weight",
                                      "mtp.layers.0.self_attn.q_proj.weight",
                                      "mtp.layers.0.self_attn.k_proj.weight",
                                      "mtp.layers.0.self_attn.v_proj.weight",
                                      "mtp.layers.0.self_attn.o_proj.weight",
                                      "mtp.layers.0.self_attn.q_norm.weight",
                                      "mtp.layers.0.self_attn.k_norm.weight"};

// The first of the head's tensors that `file` lacks; null when it has them all.
const char* MissingMtpTensor(const sdk::Weights& file) {
  for (const char* name : kMtpNeeded) {
    if (!file.Has(name)) return name;
  }
  return nullptr;
}

sdk::Status LoadMtp(const sdk::Weights& file, const Loader& ld, const Qwen35Config& c,
                    MtpWeights* m) {
  if (const char* name = MissingMtpTensor(file); name != nullptr) {
    return sdk::FailedPreconditionError(
        StrCat(file.source(), " has no complete multi-token-prediction head to draft with: ", name,
               " is missing (mtp_num_hidden_layers ", c.mtp_num_hidden_layers, ")"));
  }
  const int64_t H = c.hidden_size;
  OXI_ASSIGN_OR_RETURN(m->fc, ld.Quantised("mtp.fc.weight", H, 2 * H));
  OXI_ASSIGN_OR_RETURN(m->pre_fc_norm_embedding, ld.Vector("mtp.pre_fc_norm_embedding.weight", H));
  OXI_ASSIGN_OR_RETURN(m->pre_fc_norm_hidden, ld.Vector("mtp.pre_fc_norm_hidden.weight", H));
  OXI_ASSIGN_OR_RETURN(m->norm, ld.Vector("mtp.norm.weight", H));
  m->layer.type = LayerType::kFullAttention;
  OXI_RETURN_IF_ERROR(LoadLayerCommon(ld, c, "mtp.layers.0.", &m->layer));
  return LoadAttention(ld, c, "mtp.layers.0.self_attn.", &m->layer.attn);
}

// Counts what the text model leaves out: the vision tower, the MTP head.
void LogSkipped(const sdk::Weights& file, const std::string& prefix, int64_t layers) {
  int64_t vision = 0, mtp = 0, other = 0;
  for (int64_t i = 0; i < file.size(); ++i) {
    const std::string n = file.tensor(i).name;
    if (StartsWith(n, "model.visual.") || StartsWith(n, "visual.")) {
      ++vision;
    } else if (StartsWith(n, "mtp.")) {
      ++mtp;
    } else if (!StartsWith(n, prefix.c_str()) && n != "lm_head.weight") {
      ++other;
    }
  }
  sdk::Log(sdk::Host(), OXI_LOG_INFO, "qwen35",
           StrCat("loaded ", layers, " layers; skipped ", vision, " vision, ", mtp, " MTP and ",
                  other, " other tensors"));
}

// RoPE frequencies as transformers computes them (float32).
std::vector<float> InverseFrequencies(const Qwen35Config& c) {
  std::vector<float> f(static_cast<size_t>(c.rotary_dim / 2));
  for (size_t i = 0; i < f.size(); ++i) {
    const float e = static_cast<float>(2 * i) / static_cast<float>(c.rotary_dim);
    f[i] = 1.0f / std::pow(static_cast<float>(c.rope_theta), e);
  }
  return f;
}

}  // namespace

sdk::StatusOr<Qwen35Weights> LoadQwen35Weights(const sdk::Compute& cx, const Qwen35Config& c,
                                               const sdk::OpenParams& params) {
  Qwen35Weights w;
  OXI_ASSIGN_OR_RETURN(w.file, sdk::Weights::Open(params.model_dir, params.use_mmap));
  w.file.RecordInto(params.recorder);
  // The text weights: model.language_model.* in the published (multimodal)
  // checkpoints, model.* in a text-only save.
  std::string prefix;
  for (const char* p : {"model.language_model.", "model.", "language_model.model."}) {
    if (w.file.Has(std::string(p) + "embed_tokens.weight")) {
      prefix = p;
      break;
    }
  }
  if (prefix.empty()) {
    return sdk::NotFoundError(w.file.source() +
                              ": no embed_tokens.weight (model.language_model., "
                              "model. or language_model.model.)");
  }
  const oxi_dtype quant = params.weight_dtype;
  const bool block_quant = quant == OXI_DTYPE_Q8_0 || quant == OXI_DTYPE_Q4_0;
  const Loader ld(cx, w.file, quant);
  const int64_t H = c.hidden_size, V = c.vocab_size;

  // The embedding stays as stored: get_rows reads any type, and only the rows looked up.
  OXI_ASSIGN_OR_RETURN(w.embed, ld.Matrix(prefix + "embed_tokens.weight", V, H, OXI_DTYPE_INVALID));
  if (c.tie_word_embeddings && !block_quant) {
    w.lm_head = w.embed.t;
  } else if (c.tie_word_embeddings) {
    // Under q8 and q4 a tied head gets its own Q8_0 copy: it is the largest
    // matrix read per token, and llama.cpp likewise keeps the output matrix
    // at 6 bits or more.
    // A --save-quantized folder holds that copy as lm_head.weight.
    OXI_ASSIGN_OR_RETURN(w.lm_head_own, ld.TiedHead(prefix + "embed_tokens.weight", V, H));
    w.lm_head = w.lm_head_own.t;
  } else {
    OXI_ASSIGN_OR_RETURN(w.lm_head_own, ld.Quantised("lm_head.weight", V, H));
    w.lm_head = w.lm_head_own.t;
  }
  OXI_ASSIGN_OR_RETURN(w.final_norm, ld.Vector(prefix + "norm.weight", H));

  w.layers.resize(static_cast<size_t>(c.num_hidden_layers));
  for (int64_t i = 0; i < c.num_hidden_layers; ++i) {
    LayerWeights& L = w.layers[i];
    L.type = c.layer_types[i];
    const std::string p = StrCat(prefix, "layers.", i, ".");
    OXI_RETURN_IF_ERROR(LoadLayerCommon(ld, c, p, &L));
    if (L.type == LayerType::kLinearAttention) {
      OXI_RETURN_IF_ERROR(LoadDeltaNet(ld, c, p + "linear_attn.", &L.lin));
    } else {
      OXI_RETURN_IF_ERROR(LoadAttention(ld, c, p + "self_attn.", &L.attn));
    }
    params.Progress(static_cast<double>(i + 1), static_cast<double>(c.num_hidden_layers),
                    "loading layers");
  }
  if (params.draft) {
    OXI_RETURN_IF_ERROR(LoadMtp(w.file, ld, c, &w.mtp));
    w.has_mtp = true;
  } else if (params.recorder != nullptr && c.mtp_num_hidden_layers > 0 &&
             MissingMtpTensor(w.file) == nullptr) {
    // --save-quantized without --draft mtp: the head is loaded only to be
    // recorded, so that the saved folder can still draft, then dropped.
    OXI_RETURN_IF_ERROR(LoadMtp(w.file, ld, c, &w.mtp));
    w.mtp = MtpWeights();
  }
  LogSkipped(w.file, prefix, c.num_hidden_layers);
  if (c.rotary_dim > 0) {
    OXI_ASSIGN_OR_RETURN(w.inv_freq, cx.Upload(InverseFrequencies(c)));
  }
  return w;
}

}  // namespace qwen35
}  // namespace oxinfer
