#include "plugins/models/gemma4/gemma4_model.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/mapped_file.h"
#include "oxinfer/dtype.h"

namespace oxinfer {
namespace gemma4 {
namespace {

#define G4_RETURN_IF_ERROR(expr) \
  do {                           \
    absl::Status _s = (expr);    \
    if (!_s.ok()) return _s;     \
  } while (0)

#define G4_ASSIGN_OR_RETURN(lhs, expr) \
  do {                                 \
    auto _r = (expr);                  \
    if (!_r.ok()) return _r.status();  \
    lhs = std::move(*_r);              \
  } while (0)

constexpr int64_t kDefaultPrefillChunk = 256;

bool IsFloatType(oxi_dtype t) {
  return t == OXI_DTYPE_F32 || t == OXI_DTYPE_BF16 || t == OXI_DTYPE_F16;
}

float ElementToF32(const void* data, oxi_dtype t, int64_t i) {
  switch (t) {
    case OXI_DTYPE_F32: {
      float f;
      std::memcpy(&f, static_cast<const uint8_t*>(data) + 4 * i, 4);
      return f;
    }
    case OXI_DTYPE_BF16: {
      uint16_t h;
      std::memcpy(&h, static_cast<const uint8_t*>(data) + 2 * i, 2);
      return oxi_bf16_to_f32(h);
    }
    case OXI_DTYPE_F16: {
      uint16_t h;
      std::memcpy(&h, static_cast<const uint8_t*>(data) + 2 * i, 2);
      return oxi_f16_to_f32(h);
    }
    default:
      return 0.0f;
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<Gemma4Model>> Gemma4Model::Open(const std::string& model_dir,
                                                               const oxi_backend_iface* backend,
                                                               const ModelOptions& options) {
  if (backend == nullptr) return absl::InvalidArgumentError("gemma4: no backend given");
  const oxi_backend_iface& b = *backend;
  if (b.struct_size < offsetof(oxi_backend_iface, attention) + sizeof(b.attention) ||
      b.matmul == nullptr || b.get_rows == nullptr || b.rms_norm == nullptr || b.rope == nullptr ||
      b.unary == nullptr || b.binary == nullptr || b.scale == nullptr || b.attention == nullptr) {
    return absl::FailedPreconditionError(
        "gemma4: the backend lacks an op this model needs (matmul, get_rows, rms_norm, rope, "
        "unary, binary, scale, attention); pass the dispatcher's composed table");
  }
  std::unique_ptr<Gemma4Model> model(new Gemma4Model());
  model->be_ = backend;
  G4_RETURN_IF_ERROR(model->Load(model_dir, options));
  return model;
}

absl::StatusOr<Gemma4Model::Linear> Gemma4Model::GetLinear(const std::string& name, int64_t n,
                                                           int64_t k) {
  Tensor t;
  G4_ASSIGN_OR_RETURN(t, weights_.GetTensor(prefix_ + name));
  if (t.rank() != 2 || t.dim(0) != n || t.dim(1) != k) {
    return absl::InvalidArgumentError(absl::StrCat("gemma4: tensor ", prefix_, name, " has shape ",
                                                   t.ShapeString(), ", expected [", n, ", ", k,
                                                   "]"));
  }
  if (!IsFloatType(t.dtype())) {
    return absl::UnimplementedError(
        absl::StrCat("gemma4: tensor ", prefix_, name, " has dtype ", oxi_dtype_name(t.dtype())));
  }
  Linear l{t.data(), t.dtype(), n, k};
  oxi_dtype want = options_.weight_dtype;
  // In the layout the backend's matmul reads fastest (Q4_0 -> Q4_0x8 on AVX2).
  if (want != OXI_DTYPE_INVALID && OXI_HAS_FIELD(be_, oxi_backend_iface, matmul_weight_dtype) &&
      be_->matmul_weight_dtype != nullptr) {
    // Only a layout of the same values counts; anything else is ignored.
    const oxi_dtype got = be_->matmul_weight_dtype(be_->self, want, n, k);
    if (oxi_dtype_plain(got) == want) want = got;
  }
  if (want != OXI_DTYPE_INVALID && want != l.dtype && oxi_dtype_row_bytes(want, k) > 0) {
    if (be_->convert == nullptr) {
      return absl::FailedPreconditionError("gemma4: the backend cannot convert weights");
    }
    std::vector<uint8_t> buf(static_cast<size_t>(oxi_dtype_row_bytes(want, k) * n));
    G4_RETURN_IF_ERROR(
        Check(be_->convert(be_->self, l.data, l.dtype, buf.data(), want, n, k), "convert"));
    owned_.push_back(std::move(buf));
    l.data = owned_.back().data();
    l.dtype = want;
    // The converted copy is what the model keeps: the stored bytes leave
    // memory (a table still read in place re-reads just the rows it needs).
    weights_.Release(prefix_ + name);
  }
  return l;
}

absl::StatusOr<std::vector<float>> Gemma4Model::GetVector(const std::string& name, int64_t n) {
  Tensor t;
  G4_ASSIGN_OR_RETURN(t, weights_.GetTensor(prefix_ + name));
  if (t.numel() != n || t.rank() > 1) {
    return absl::InvalidArgumentError(absl::StrCat("gemma4: tensor ", prefix_, name, " has shape ",
                                                   t.ShapeString(), ", expected [", n, "]"));
  }
  if (!IsFloatType(t.dtype())) {
    return absl::UnimplementedError(
        absl::StrCat("gemma4: tensor ", prefix_, name, " has dtype ", oxi_dtype_name(t.dtype())));
  }
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = ElementToF32(t.data(), t.dtype(), i);
  weights_.Release(prefix_ + name);
  return v;
}

absl::Status Gemma4Model::Load(const std::string& model_dir, const ModelOptions& options) {
  options_ = options;
  std::string text;
  G4_ASSIGN_OR_RETURN(text, ReadFileToString(model_dir + "/config.json"));
  G4_ASSIGN_OR_RETURN(cfg_, ParseGemma4Config(text));
  G4_ASSIGN_OR_RETURN(weights_, ModelWeights::Open(model_dir, options.use_mmap ? LoadMode::kMmap
                                                                               : LoadMode::kRead));
  if (weights_.Find("model.language_model.embed_tokens.weight") != nullptr) {
    prefix_ = "model.language_model.";
  } else if (weights_.Find("model.embed_tokens.weight") != nullptr) {
    prefix_ = "model.";
  } else {
    return absl::NotFoundError(absl::StrCat(
        "gemma4: no model.language_model.embed_tokens.weight (or model.embed_tokens.weight) in '",
        weights_.source(), "'"));
  }
  const int64_t H = cfg_.hidden_size, L = cfg_.num_layers, P = cfg_.hidden_size_per_layer_input;
  const ModelOptions keep = options_;
  options_.weight_dtype = OXI_DTYPE_INVALID;  // embeddings stay as stored (row lookups)
  G4_ASSIGN_OR_RETURN(embed_, GetLinear("embed_tokens.weight", cfg_.vocab_size, H));
  if (P > 0) {
    G4_ASSIGN_OR_RETURN(embed_per_layer_, GetLinear("embed_tokens_per_layer.weight",
                                                    cfg_.vocab_size_per_layer_input, L * P));
  }
  options_ = keep;
  lm_head_ = embed_;
  if (options_.weight_dtype == OXI_DTYPE_Q8_0 || options_.weight_dtype == OXI_DTYPE_Q4_0) {
    // Under q8 and q4 the tied head gets its own Q8_0 copy (embeddings stay
    // as stored for row lookups): it is the largest matrix read per token,
    // and llama.cpp likewise keeps the output matrix at 6 bits or more.
    options_.weight_dtype = OXI_DTYPE_Q8_0;
    auto head = GetLinear("embed_tokens.weight", cfg_.vocab_size, H);
    options_ = keep;
    if (!head.ok()) return head.status();
    lm_head_ = *head;
  }
  if (P > 0) {
    G4_ASSIGN_OR_RETURN(per_layer_model_projection_,
                        GetLinear("per_layer_model_projection.weight", L * P, H));
    G4_ASSIGN_OR_RETURN(per_layer_projection_norm_,
                        GetVector("per_layer_projection_norm.weight", P));
  }
  G4_ASSIGN_OR_RETURN(final_norm_, GetVector("norm.weight", H));

  layers_.resize(L);
  for (int i = 0; i < L; ++i) {
    Layer& l = layers_[i];
    l.cfg = cfg_.layers[i];
    const std::string p = absl::StrCat("layers.", i, ".");
    const int64_t hd = l.cfg.head_dim, nq = cfg_.num_heads, nkv = l.cfg.num_kv_heads;
    const int64_t I = l.cfg.intermediate_size;
    G4_ASSIGN_OR_RETURN(l.q_proj, GetLinear(p + "self_attn.q_proj.weight", nq * hd, H));
    G4_ASSIGN_OR_RETURN(l.o_proj, GetLinear(p + "self_attn.o_proj.weight", H, nq * hd));
    G4_ASSIGN_OR_RETURN(l.q_norm, GetVector(p + "self_attn.q_norm.weight", hd));
    if (!l.cfg.kv_shared) {  // shared layers' k/v weights, when present, are unused
      G4_ASSIGN_OR_RETURN(l.k_proj, GetLinear(p + "self_attn.k_proj.weight", nkv * hd, H));
      if (!l.cfg.k_eq_v) {
        G4_ASSIGN_OR_RETURN(l.v_proj, GetLinear(p + "self_attn.v_proj.weight", nkv * hd, H));
      }
      G4_ASSIGN_OR_RETURN(l.k_norm, GetVector(p + "self_attn.k_norm.weight", hd));
    }
    G4_ASSIGN_OR_RETURN(l.gate_proj, GetLinear(p + "mlp.gate_proj.weight", I, H));
    G4_ASSIGN_OR_RETURN(l.up_proj, GetLinear(p + "mlp.up_proj.weight", I, H));
    G4_ASSIGN_OR_RETURN(l.down_proj, GetLinear(p + "mlp.down_proj.weight", H, I));
    G4_ASSIGN_OR_RETURN(l.input_norm, GetVector(p + "input_layernorm.weight", H));
    G4_ASSIGN_OR_RETURN(l.post_attn_norm, GetVector(p + "post_attention_layernorm.weight", H));
    G4_ASSIGN_OR_RETURN(l.pre_ff_norm, GetVector(p + "pre_feedforward_layernorm.weight", H));
    G4_ASSIGN_OR_RETURN(l.post_ff_norm, GetVector(p + "post_feedforward_layernorm.weight", H));
    if (P > 0) {
      G4_ASSIGN_OR_RETURN(l.per_layer_input_gate,
                          GetLinear(p + "per_layer_input_gate.weight", P, H));
      G4_ASSIGN_OR_RETURN(l.per_layer_projection,
                          GetLinear(p + "per_layer_projection.weight", H, P));
      G4_ASSIGN_OR_RETURN(l.post_per_layer_input_norm,
                          GetVector(p + "post_per_layer_input_norm.weight", H));
    }
    if (weights_.Find(prefix_ + p + "layer_scalar") != nullptr) {
      std::vector<float> s;
      G4_ASSIGN_OR_RETURN(s, GetVector(p + "layer_scalar", 1));
      l.layer_scalar = s[0];
    }
    l.inv_freq = RopeInvFreq(l.cfg.sliding ? cfg_.rope_sliding : cfg_.rope_full, hd);
  }

  chunk_ = options.prefill_chunk > 0 ? options.prefill_chunk : kDefaultPrefillChunk;
  context_ = options.context_length > 0 ? options.context_length : cfg_.max_position_embeddings;
  if (context_ <= 0) context_ = 1 << 20;
  ResetCaches();
  return absl::OkStatus();
}

void Gemma4Model::ResetCaches() {
  caches_.assign(layers_.size(), KvCache());
  for (size_t i = 0; i < layers_.size(); ++i) {
    const LayerConfig& c = layers_[i].cfg;
    if (c.kv_shared) continue;
    KvCache& kv = caches_[i];
    kv.row = static_cast<int64_t>(c.num_kv_heads) * c.head_dim;
    if (c.sliding) {
      // Room for the window behind the first query of a chunk plus the chunk.
      kv.capacity = cfg_.sliding_window + chunk_;
      kv.k.assign(kv.capacity * kv.row, 0.0f);
      kv.v.assign(kv.capacity * kv.row, 0.0f);
      kv.pos.assign(kv.capacity, -1);
    }
  }
  tokens_.clear();
}

absl::Status Gemma4Model::Check(int32_t code, const char* op) const {
  if (code == OXI_OK) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(code),
                      absl::StrCat("gemma4: backend ", be_->device_name ? be_->device_name : "?",
                                   " op ", op, " failed (code ", code, ")"));
}

absl::Status Gemma4Model::MatMul(const float* x, int64_t m, const Linear& w, float* y) const {
  return Check(be_->matmul(be_->self, x, m, w.k, w.data, w.dtype, w.n, y), "matmul");
}

absl::Status Gemma4Model::RmsNorm(const float* x, const float* w, int64_t rows, int64_t dim,
                                  float* out) const {
  return Check(
      be_->rms_norm(be_->self, x, w, 0.0f, rows, dim, static_cast<float>(cfg_.rms_norm_eps), out),
      "rms_norm");
}

absl::Status Gemma4Model::Add(const float* a, const float* b, int64_t n, float* out) const {
  return Check(be_->binary(be_->self, OXI_BINARY_ADD, a, b, n, n, out), "binary");
}

absl::Status Gemma4Model::Mul(const float* a, const float* b, int64_t n, int64_t nb,
                              float* out) const {
  return Check(be_->binary(be_->self, OXI_BINARY_MUL, a, b, n, nb, out), "binary");
}

absl::Status Gemma4Model::Scale(const float* x, int64_t n, float s, float* out) const {
  return Check(be_->scale(be_->self, x, n, s, 0.0f, out), "scale");
}

absl::Status Gemma4Model::Unary(oxi_unary_op op, const float* x, int64_t n, float* out) const {
  return Check(be_->unary(be_->self, op, x, n, out), "unary");
}

absl::Status Gemma4Model::Forward(const int32_t* tokens, int64_t n, float* logits) {
  if (n < 0 || (n > 0 && tokens == nullptr))
    return absl::InvalidArgumentError("gemma4: bad tokens");
  if (n == 0) {
    if (logits != nullptr) return absl::InvalidArgumentError("gemma4: logits of an empty input");
    return absl::OkStatus();
  }
  const int64_t past = num_tokens();
  if (past + n > context_) {
    return absl::OutOfRangeError(
        absl::StrCat("gemma4: ", past + n, " tokens exceed the context of ", context_));
  }
  for (int64_t i = 0; i < n; ++i) {
    if (tokens[i] < 0 || tokens[i] >= cfg_.vocab_size) {
      return absl::InvalidArgumentError(absl::StrCat(
          "gemma4: token id ", tokens[i], " outside the vocabulary of ", cfg_.vocab_size));
    }
  }
  for (int64_t off = 0; off < n; off += chunk_) {
    const int64_t m = std::min(chunk_, n - off);
    const bool last = off + m == n;
    absl::Status s = RunChunk(tokens + off, m, past + off, last ? logits : nullptr);
    if (!s.ok()) {
      // Leave a consistent state: the sequence as it was before this call
      // (this chunk may have written some layers' caches already).
      DropFrom(past).IgnoreError();
      return s;
    }
    tokens_.insert(tokens_.end(), tokens + off, tokens + off + m);
  }
  return absl::OkStatus();
}

absl::Status Gemma4Model::Truncate(int64_t n_keep) {
  if (n_keep < 0) return absl::InvalidArgumentError("gemma4: negative truncate length");
  if (n_keep >= num_tokens()) return absl::OkStatus();
  return DropFrom(n_keep);
}

absl::Status Gemma4Model::DropFrom(int64_t n_keep) {
  // Global caches simply drop the tail; a ring may have overwritten positions
  // that the kept window still needs, in which case the prefix is recomputed.
  bool rebuild = false;
  for (size_t i = 0; i < layers_.size(); ++i) {
    KvCache& kv = caches_[i];
    if (layers_[i].cfg.kv_shared) continue;
    if (kv.capacity == 0) {
      if (kv.slots() <= n_keep) continue;
      kv.pos.resize(n_keep);
      kv.k.resize(n_keep * kv.row);
      kv.v.resize(n_keep * kv.row);
      continue;
    }
    for (int64_t s = 0; s < kv.capacity; ++s) {
      if (kv.pos[s] >= n_keep) kv.pos[s] = -1;
    }
    for (int64_t p = std::max<int64_t>(0, n_keep - cfg_.sliding_window + 1); p < n_keep; ++p) {
      if (kv.pos[p % kv.capacity] != p) rebuild = true;
    }
  }
  std::vector<int32_t> kept(tokens_.begin(), tokens_.begin() + n_keep);
  if (!rebuild) {
    tokens_ = std::move(kept);
    return absl::OkStatus();
  }
  ResetCaches();
  return Forward(kept.data(), static_cast<int64_t>(kept.size()), nullptr);
}

absl::Status Gemma4Model::RunChunk(const int32_t* tokens, int64_t m, int64_t p0, float* logits) {
  const int64_t H = cfg_.hidden_size, L = cfg_.num_layers, P = cfg_.hidden_size_per_layer_input;
  const int64_t nq = cfg_.num_heads;
  std::vector<int32_t> pos(m);
  for (int64_t t = 0; t < m; ++t) pos[t] = static_cast<int32_t>(p0 + t);

  // Embeddings, scaled by sqrt(hidden) (a float32 constant, as transformers').
  std::vector<float> x(m * H);
  G4_RETURN_IF_ERROR(
      Check(be_->get_rows(be_->self, embed_.data, embed_.dtype, embed_.n, H, tokens, m, x.data()),
            "get_rows"));
  G4_RETURN_IF_ERROR(Scale(x.data(), m * H, std::sqrt(static_cast<float>(H)), x.data()));

  // Per-layer inputs: (norm(proj(x) / sqrt(H)) + embed_pl(ids) * sqrt(P)) / sqrt(2),
  // stored layer-major [L][m][P].
  std::vector<float> ple;
  if (P > 0) {
    std::vector<float> tok(m * L * P), proj(m * L * P);
    for (int64_t t = 0; t < m; ++t) {
      if (tokens[t] >= embed_per_layer_.n) {
        return absl::InvalidArgumentError(absl::StrCat("gemma4: token id ", tokens[t],
                                                       " outside the per-layer vocabulary of ",
                                                       embed_per_layer_.n));
      }
    }
    G4_RETURN_IF_ERROR(Check(be_->get_rows(be_->self, embed_per_layer_.data, embed_per_layer_.dtype,
                                           embed_per_layer_.n, L * P, tokens, m, tok.data()),
                             "get_rows"));
    G4_RETURN_IF_ERROR(Scale(tok.data(), m * L * P, std::sqrt(static_cast<float>(P)), tok.data()));
    G4_RETURN_IF_ERROR(MatMul(x.data(), m, per_layer_model_projection_, proj.data()));
    G4_RETURN_IF_ERROR(Scale(proj.data(), m * L * P,
                             static_cast<float>(std::pow(static_cast<double>(H), -0.5)),
                             proj.data()));
    G4_RETURN_IF_ERROR(
        RmsNorm(proj.data(), per_layer_projection_norm_.data(), m * L, P, proj.data()));
    G4_RETURN_IF_ERROR(Add(proj.data(), tok.data(), m * L * P, proj.data()));
    G4_RETURN_IF_ERROR(
        Scale(proj.data(), m * L * P, static_cast<float>(std::pow(2.0, -0.5)), proj.data()));
    ple.resize(m * L * P);
    for (int64_t t = 0; t < m; ++t) {
      for (int64_t l = 0; l < L; ++l) {
        std::memcpy(&ple[(l * m + t) * P], &proj[(t * L + l) * P], P * sizeof(float));
      }
    }
  }

  std::vector<float> h(m * H), q, k, v, attn, g, u, gp;
  for (int64_t li = 0; li < L; ++li) {
    const Layer& ly = layers_[li];
    const LayerConfig& c = ly.cfg;
    const int64_t hd = c.head_dim, nkv = c.num_kv_heads;

    // ---- attention ----
    G4_RETURN_IF_ERROR(RmsNorm(x.data(), ly.input_norm.data(), m, H, h.data()));
    q.resize(m * nq * hd);
    G4_RETURN_IF_ERROR(MatMul(h.data(), m, ly.q_proj, q.data()));
    G4_RETURN_IF_ERROR(RmsNorm(q.data(), ly.q_norm.data(), m * nq, hd, q.data()));
    G4_RETURN_IF_ERROR(
        Check(be_->rope(be_->self, q.data(), m, static_cast<int32_t>(nq), static_cast<int32_t>(hd),
                        static_cast<int32_t>(hd), pos.data(), ly.inv_freq.data()),
              "rope"));
    if (!c.kv_shared) {
      KvCache& kv = caches_[li];
      k.resize(m * nkv * hd);
      v.resize(m * nkv * hd);
      G4_RETURN_IF_ERROR(MatMul(h.data(), m, ly.k_proj, k.data()));
      if (c.k_eq_v) {
        v = k;  // V is the raw key projection (before k_norm and RoPE)
      } else {
        G4_RETURN_IF_ERROR(MatMul(h.data(), m, ly.v_proj, v.data()));
      }
      G4_RETURN_IF_ERROR(RmsNorm(k.data(), ly.k_norm.data(), m * nkv, hd, k.data()));
      G4_RETURN_IF_ERROR(Check(
          be_->rope(be_->self, k.data(), m, static_cast<int32_t>(nkv), static_cast<int32_t>(hd),
                    static_cast<int32_t>(hd), pos.data(), ly.inv_freq.data()),
          "rope"));
      G4_RETURN_IF_ERROR(RmsNorm(v.data(), nullptr, m * nkv, hd, v.data()));
      // Store into the cache.
      const int64_t row = kv.row;
      if (kv.capacity == 0) {
        if (kv.slots() != p0) {
          return absl::InternalError("gemma4: global KV cache out of step with the sequence");
        }
        kv.k.insert(kv.k.end(), k.begin(), k.end());
        kv.v.insert(kv.v.end(), v.begin(), v.end());
        kv.pos.insert(kv.pos.end(), pos.begin(), pos.end());
      } else {
        for (int64_t t = 0; t < m; ++t) {
          const int64_t s = (p0 + t) % kv.capacity;
          std::memcpy(&kv.k[s * row], &k[t * row], row * sizeof(float));
          std::memcpy(&kv.v[s * row], &v[t * row], row * sizeof(float));
          kv.pos[s] = pos[t];
        }
      }
    }
    const KvCache& kv = caches_[c.kv_source];
    attn.resize(m * nq * hd);
    oxi_attention_params ap;
    std::memset(&ap, 0, sizeof(ap));
    ap.struct_size = sizeof(ap);
    ap.n_q = m;
    ap.n_kv = kv.slots();
    ap.n_heads = static_cast<int32_t>(nq);
    ap.n_kv_heads = static_cast<int32_t>(nkv);
    ap.head_dim = static_cast<int32_t>(hd);
    ap.v_head_dim = static_cast<int32_t>(hd);
    ap.q = q.data();
    ap.k = kv.k.data();
    ap.v = kv.v.data();
    ap.q_pos = pos.data();
    ap.kv_pos = kv.pos.data();
    ap.out = attn.data();
    ap.scale = 1.0f;  // q and k are RMS-normalised; Gemma 4 uses no 1/sqrt(d)
    ap.softcap = 0.0f;
    ap.causal = 1;
    ap.window = c.sliding ? cfg_.sliding_window : 0;
    ap.k_row_stride = 0;
    ap.v_row_stride = 0;
    G4_RETURN_IF_ERROR(Check(be_->attention(be_->self, &ap), "attention"));
    G4_RETURN_IF_ERROR(MatMul(attn.data(), m, ly.o_proj, h.data()));
    G4_RETURN_IF_ERROR(RmsNorm(h.data(), ly.post_attn_norm.data(), m, H, h.data()));
    G4_RETURN_IF_ERROR(Add(x.data(), h.data(), m * H, x.data()));

    // ---- MLP: down(gelu_tanh(gate(h)) * up(h)) ----
    const int64_t I = c.intermediate_size;
    G4_RETURN_IF_ERROR(RmsNorm(x.data(), ly.pre_ff_norm.data(), m, H, h.data()));
    g.resize(m * I);
    u.resize(m * I);
    G4_RETURN_IF_ERROR(MatMul(h.data(), m, ly.gate_proj, g.data()));
    G4_RETURN_IF_ERROR(MatMul(h.data(), m, ly.up_proj, u.data()));
    G4_RETURN_IF_ERROR(Unary(OXI_UNARY_GELU_TANH, g.data(), m * I, g.data()));
    G4_RETURN_IF_ERROR(Mul(g.data(), u.data(), m * I, m * I, g.data()));
    G4_RETURN_IF_ERROR(MatMul(g.data(), m, ly.down_proj, h.data()));
    G4_RETURN_IF_ERROR(RmsNorm(h.data(), ly.post_ff_norm.data(), m, H, h.data()));
    G4_RETURN_IF_ERROR(Add(x.data(), h.data(), m * H, x.data()));

    // ---- per-layer input ----
    if (P > 0) {
      gp.resize(m * P);
      G4_RETURN_IF_ERROR(MatMul(x.data(), m, ly.per_layer_input_gate, gp.data()));
      G4_RETURN_IF_ERROR(Unary(OXI_UNARY_GELU_TANH, gp.data(), m * P, gp.data()));
      G4_RETURN_IF_ERROR(Mul(gp.data(), &ple[li * m * P], m * P, m * P, gp.data()));
      G4_RETURN_IF_ERROR(MatMul(gp.data(), m, ly.per_layer_projection, h.data()));
      G4_RETURN_IF_ERROR(RmsNorm(h.data(), ly.post_per_layer_input_norm.data(), m, H, h.data()));
      G4_RETURN_IF_ERROR(Add(x.data(), h.data(), m * H, x.data()));
    }
    G4_RETURN_IF_ERROR(Scale(x.data(), m * H, ly.layer_scalar, x.data()));
  }

  if (logits == nullptr) return absl::OkStatus();
  // Final norm of the last token, tied LM head, softcap: cap * tanh(z / cap).
  G4_RETURN_IF_ERROR(RmsNorm(&x[(m - 1) * H], final_norm_.data(), 1, H, h.data()));
  G4_RETURN_IF_ERROR(MatMul(h.data(), 1, lm_head_, logits));
  if (cfg_.final_logit_softcapping > 0) {
    const float cap = static_cast<float>(cfg_.final_logit_softcapping);
    const int64_t V = cfg_.vocab_size;
    G4_RETURN_IF_ERROR(
        Check(be_->binary(be_->self, OXI_BINARY_DIV, logits, &cap, V, 1, logits), "binary"));
    G4_RETURN_IF_ERROR(Unary(OXI_UNARY_TANH, logits, V, logits));
    G4_RETURN_IF_ERROR(Scale(logits, V, cap, logits));
  }
  return absl::OkStatus();
}

}  // namespace gemma4
}  // namespace oxinfer
