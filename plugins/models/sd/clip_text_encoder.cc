#include "plugins/models/sd/clip_text_encoder.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "plugins/models/sd/sd_config.h"
#include "plugins/models/sd/sd_weights.h"

namespace oxinfer {
namespace sd {

absl::StatusOr<ClipTextEncoder> ClipTextEncoder::Load(const std::string& dir,
                                                      oxi_dtype weight_dtype) {
  nlohmann::json cfg;
  SD_ASSIGN(cfg, ReadJsonFile(dir + "/config.json"));
  ClipTextEncoder e;
  SD_ASSIGN(e.hidden_, GetInt(cfg, "hidden_size", 768));
  SD_ASSIGN(e.heads_, GetInt(cfg, "num_attention_heads", 12));
  int64_t n_layers = 0;
  SD_ASSIGN(n_layers, GetInt(cfg, "num_hidden_layers", 12));
  SD_ASSIGN(e.max_pos_, GetInt(cfg, "max_position_embeddings", 77));
  double eps = 1e-5;
  SD_ASSIGN(eps, GetDouble(cfg, "layer_norm_eps", 1e-5));
  std::string act;
  SD_ASSIGN(act, GetString(cfg, "hidden_act", "quick_gelu"));
  if (act == "quick_gelu") {
    e.quick_gelu_ = true;
  } else if (act == "gelu") {
    e.quick_gelu_ = false;
  } else {
    return absl::UnimplementedError(absl::StrCat(dir, ": hidden_act '", act, "' not supported"));
  }
  if (e.hidden_ <= 0 || e.heads_ <= 0 || e.hidden_ % e.heads_ != 0 || n_layers <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(dir, ": inconsistent CLIP config"));
  }
  WeightStore w;
  SD_ASSIGN(w, WeightStore::Open(dir, weight_dtype));
  std::vector<int64_t> shape;
  SD_ASSIGN(e.tok_emb_, w.Floats("embeddings.token_embedding.weight", &shape));
  if (shape.size() != 2 || shape[1] != e.hidden_) {
    return absl::InvalidArgumentError("token_embedding has the wrong shape");
  }
  e.vocab_ = shape[0];
  SD_ASSIGN(e.pos_emb_, w.Floats("embeddings.position_embedding.weight", &shape));
  if (shape.size() != 2 || shape[1] != e.hidden_ || shape[0] < e.max_pos_) {
    return absl::InvalidArgumentError("position_embedding has the wrong shape");
  }
  for (int64_t i = 0; i < n_layers; ++i) {
    const std::string p = absl::StrCat("encoder.layers.", i, ".");
    Layer l;
    SD_ASSIGN(l.ln1, w.GetNorm(p + "layer_norm1", static_cast<float>(eps)));
    SD_ASSIGN(l.ln2, w.GetNorm(p + "layer_norm2", static_cast<float>(eps)));
    SD_ASSIGN(l.q, w.GetLinear(p + "self_attn.q_proj"));
    SD_ASSIGN(l.k, w.GetLinear(p + "self_attn.k_proj"));
    SD_ASSIGN(l.v, w.GetLinear(p + "self_attn.v_proj"));
    SD_ASSIGN(l.o, w.GetLinear(p + "self_attn.out_proj"));
    SD_ASSIGN(l.fc1, w.GetLinear(p + "mlp.fc1"));
    SD_ASSIGN(l.fc2, w.GetLinear(p + "mlp.fc2"));
    e.layers_.push_back(std::move(l));
  }
  SD_ASSIGN(e.final_ln_, w.GetNorm("final_layer_norm", static_cast<float>(eps)));
  return e;
}

absl::StatusOr<Act> ClipTextEncoder::Encode(const Ops& ops, const std::vector<int32_t>& ids) const {
  const int64_t len = static_cast<int64_t>(ids.size());
  if (len == 0 || len > max_pos_) {
    return absl::InvalidArgumentError(
        absl::StrCat("text encoder: ", len, " tokens, at most ", max_pos_));
  }
  const int64_t d = hidden_;
  Act h(1, 1, len, d);
  for (int64_t t = 0; t < len; ++t) {
    if (ids[t] < 0 || ids[t] >= vocab_) {
      return absl::InvalidArgumentError(absl::StrCat("token id ", ids[t], " out of range"));
    }
    for (int64_t i = 0; i < d; ++i) {
      h.d[t * d + i] = tok_emb_[ids[t] * d + i] + pos_emb_[t * d + i];
    }
  }
  Act x, q, k, v, a, o, f;
  for (const Layer& l : layers_) {
    absl::Status s = ops.LayerNorm(h, l.ln1, &x);
    if (s.ok()) s = ops.Apply(x, l.q, &q);
    if (s.ok()) s = ops.Apply(x, l.k, &k);
    if (s.ok()) s = ops.Apply(x, l.v, &v);
    if (s.ok()) s = ops.Attention(q, k, v, heads_, /*causal=*/true, &a);
    if (s.ok()) s = ops.Apply(a, l.o, &o);
    if (s.ok()) s = ops.AddInPlace(h.data(), o.data(), h.size());
    if (s.ok()) s = ops.LayerNorm(h, l.ln2, &x);
    if (s.ok()) s = ops.Apply(x, l.fc1, &f);
    if (s.ok()) {
      s = quick_gelu_ ? ops.QuickGelu(f.data(), f.size())
                      : ops.Unary(OXI_UNARY_GELU_ERF, f.data(), f.size());
    }
    if (s.ok()) s = ops.Apply(f, l.fc2, &o);
    if (s.ok()) s = ops.AddInPlace(h.data(), o.data(), h.size());
    if (!s.ok()) return s;
  }
  Act out;
  absl::Status s = ops.LayerNorm(h, final_ln_, &out);
  if (!s.ok()) return s;
  return out;
}

}  // namespace sd
}  // namespace oxinfer
