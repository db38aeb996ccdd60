#include "plugins/models/sd/clip_text_encoder.h"

#include <cmath>
#include <utility>

#include "plugins/models/sd/sd_config.h"
#include "plugins/models/sd/sd_weights.h"

namespace oxinfer {
namespace sd {

sdk::Status ClipTextEncoder::Load(const std::string& dir, const sdk::Compute* cx,
                                  oxi_dtype matrix_dtype, bool use_mmap) {
  OXI_RETURN_IF_ERROR(LoadConfig(dir));
  return LoadWeights(cx, matrix_dtype, use_mmap);
}

sdk::Status ClipTextEncoder::LoadConfig(const std::string& dir) {
  OXI_ASSIGN_OR_RETURN(sdk::JsonDoc doc, ReadConfig(dir + "/config.json"));
  const sdk::Json cfg = doc.root();
  OXI_ASSIGN_OR_RETURN(hidden_, cfg["hidden_size"].IntOr(768));
  OXI_ASSIGN_OR_RETURN(heads_, cfg["num_attention_heads"].IntOr(12));
  OXI_ASSIGN_OR_RETURN(int64_t n_layers, cfg["num_hidden_layers"].IntOr(12));
  OXI_ASSIGN_OR_RETURN(max_pos_, cfg["max_position_embeddings"].IntOr(77));
  OXI_ASSIGN_OR_RETURN(double eps, cfg["layer_norm_eps"].NumberOr(1e-5));
  if (!(eps > 0) || !std::isfinite(eps)) {
    return cfg["layer_norm_eps"].Error("must be a positive finite number");
  }
  OXI_ASSIGN_OR_RETURN(std::string act, cfg["hidden_act"].StringOr("quick_gelu"));
  if (act == "quick_gelu") {
    act_ = OXI_UNARY_QUICK_GELU;
  } else if (act == "gelu") {
    act_ = OXI_UNARY_GELU_ERF;
  } else {
    return sdk::UnimplementedError(
        sdk::StrCat(dir, "/config.json: hidden_act '", act, "' (quick_gelu or gelu)"));
  }
  if (hidden_ <= 0 || heads_ <= 0 || hidden_ % heads_ != 0 || n_layers <= 0 || n_layers > 256 ||
      max_pos_ < 2 || max_pos_ > 4096) {
    return sdk::InvalidArgumentError(
        sdk::StrCat(dir, "/config.json: hidden_size ", hidden_, ", num_attention_heads ", heads_,
                    ", num_hidden_layers ", n_layers, ", max_position_embeddings ", max_pos_,
                    ": inconsistent"));
  }
  dir_ = dir;
  n_layers_ = n_layers;
  eps_ = static_cast<float>(eps);
  return sdk::OkStatus();
}

sdk::Status ClipTextEncoder::LoadWeights(const sdk::Compute* cx, oxi_dtype matrix_dtype,
                                         bool use_mmap) {
  if (dir_.empty()) return sdk::FailedPreconditionError("text encoder: LoadConfig first");
  ReleaseWeights();
  OXI_ASSIGN_OR_RETURN(ComponentWeights w,
                       ComponentWeights::Open(dir_, cx, matrix_dtype, use_mmap));
  weights_ = w.weights();
  OXI_ASSIGN_OR_RETURN(const oxi_weight_tensor* tok, w.Get("embeddings.token_embedding.weight"));
  if (tok->ndim != 2 || tok->shape[1] != hidden_ || tok->shape[0] < 1) {
    return sdk::InvalidArgumentError(sdk::StrCat(w.source(), ": ", tok->name, " has shape ",
                                                 sdk::ShapeString(*tok), ", expected [vocab, ",
                                                 hidden_, "]"));
  }
  vocab_ = tok->shape[0];
  OXI_ASSIGN_OR_RETURN(tok_emb_,
                       w.LoadMatrix("embeddings.token_embedding.weight", vocab_, hidden_));
  OXI_ASSIGN_OR_RETURN(const oxi_weight_tensor* pos, w.Get("embeddings.position_embedding.weight"));
  if (pos->ndim != 2 || pos->shape[1] != hidden_ || pos->shape[0] < max_pos_) {
    return sdk::InvalidArgumentError(sdk::StrCat(w.source(), ": ", pos->name, " has shape ",
                                                 sdk::ShapeString(*pos), ", expected [", max_pos_,
                                                 ", ", hidden_, "]"));
  }
  OXI_ASSIGN_OR_RETURN(pos_emb_,
                       w.LoadF32("embeddings.position_embedding.weight", pos->shape[0] * hidden_));
  pos_emb_.t = pos_emb_.t.Reshape(pos->shape[0], hidden_);
  const float e = eps_;
  for (int64_t i = 0; i < n_layers_; ++i) {
    const std::string p = sdk::StrCat("encoder.layers.", i, ".");
    Layer l;
    OXI_ASSIGN_OR_RETURN(l.ln1, w.LoadNorm(p + "layer_norm1", e));
    OXI_ASSIGN_OR_RETURN(l.ln2, w.LoadNorm(p + "layer_norm2", e));
    OXI_ASSIGN_OR_RETURN(l.q, w.LoadLinear(p + "self_attn.q_proj"));
    OXI_ASSIGN_OR_RETURN(l.k, w.LoadLinear(p + "self_attn.k_proj"));
    OXI_ASSIGN_OR_RETURN(l.v, w.LoadLinear(p + "self_attn.v_proj"));
    OXI_ASSIGN_OR_RETURN(l.o, w.LoadLinear(p + "self_attn.out_proj"));
    OXI_ASSIGN_OR_RETURN(l.fc1, w.LoadLinear(p + "mlp.fc1"));
    OXI_ASSIGN_OR_RETURN(l.fc2, w.LoadLinear(p + "mlp.fc2"));
    layers_.push_back(std::move(l));
  }
  OXI_ASSIGN_OR_RETURN(final_ln_, w.LoadNorm("final_layer_norm", e));
  loaded_ = true;
  return sdk::OkStatus();
}

void ClipTextEncoder::ReleaseWeights() {
  // The layers first: their buffers may point into the mapping.
  loaded_ = false;
  tok_emb_ = sdk::OwnedTensor();
  pos_emb_ = sdk::OwnedTensor();
  layers_.clear();
  final_ln_ = Norm();
  weights_ = sdk::Weights();
}

sdk::StatusOr<Act> ClipTextEncoder::Encode(const Net& net, const std::vector<int32_t>& ids,
                                           int64_t n) const {
  if (!loaded_) return sdk::FailedPreconditionError("text encoder: weights not loaded");
  const int64_t total = static_cast<int64_t>(ids.size());
  const int64_t len = n > 0 ? total / n : 0;
  if (len == 0 || len * n != total || len > max_pos_) {
    return sdk::InvalidArgumentError(sdk::StrCat("text encoder: ", total, " tokens in ", n,
                                                 " sequences; at most ", max_pos_, " each"));
  }
  for (int64_t i = 0; i < total; ++i) {
    if (ids[i] < 0 || ids[i] >= vocab_) {
      return sdk::InvalidArgumentError(
          sdk::StrCat("text encoder: token id ", ids[i], " outside the vocabulary of ", vocab_));
    }
  }
  const sdk::Compute& cx = net.cx();
  OXI_ASSIGN_OR_RETURN(sdk::OwnedTensor id_tensor,
                       cx.Upload(ids.data(), OXI_DTYPE_I32, 1, total, /*flags=*/0));
  OXI_ASSIGN_OR_RETURN(Act h, net.New(n, 1, len, hidden_));
  OXI_RETURN_IF_ERROR(cx.GetRows(tok_emb_, id_tensor, h.t()));
  for (int64_t b = 0; b < n; ++b) {
    OXI_RETURN_IF_ERROR(cx.Add(h.Image(b), pos_emb_.t.Rows(0, len), h.Image(b)));
  }
  for (const Layer& l : layers_) {
    {
      OXI_ASSIGN_OR_RETURN(Act x, net.LayerNorm(h, l.ln1));
      OXI_ASSIGN_OR_RETURN(Act q, net.Apply(x, l.q));
      OXI_ASSIGN_OR_RETURN(Act k, net.Apply(x, l.k));
      OXI_ASSIGN_OR_RETURN(Act v, net.Apply(x, l.v));
      OXI_ASSIGN_OR_RETURN(Act a, net.Attention(q, k, v, heads_, /*causal=*/true));
      OXI_ASSIGN_OR_RETURN(Act o, net.Apply(a, l.o));
      OXI_RETURN_IF_ERROR(net.AddInPlace(&h, o));
    }
    {
      OXI_ASSIGN_OR_RETURN(Act x, net.LayerNorm(h, l.ln2));
      OXI_ASSIGN_OR_RETURN(Act f, net.Apply(x, l.fc1));
      OXI_RETURN_IF_ERROR(net.UnaryInPlace(act_, &f));
      OXI_ASSIGN_OR_RETURN(Act o, net.Apply(f, l.fc2));
      OXI_RETURN_IF_ERROR(net.AddInPlace(&h, o));
    }
  }
  return net.LayerNorm(h, final_ln_);
}

}  // namespace sd
}  // namespace oxinfer
