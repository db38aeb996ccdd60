#include "plugins/models/qwen35/qwen35_model.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "oxinfer/plugin.hpp"
#include "plugins/models/qwen35/gated_delta.h"
#include "plugins/models/qwen35/status_macros.h"

namespace oxinfer {
namespace qwen35 {
namespace {

bool IsFloatType(oxi_dtype t) {
  return t == OXI_DTYPE_F32 || t == OXI_DTYPE_BF16 || t == OXI_DTYPE_F16;
}

std::string ShapeString(const std::vector<int64_t>& s) {
  return absl::StrCat("[", absl::StrJoin(s, ", "), "]");
}

std::shared_ptr<void> AllocAligned(const oxi_host_services* host, size_t bytes) {
  if (host != nullptr && OXI_HAS_FIELD(host, oxi_host_services, aligned_free) &&
      host->aligned_alloc != nullptr && host->aligned_free != nullptr) {
    void* p = host->aligned_alloc(bytes);
    if (p == nullptr) return nullptr;
    auto fr = host->aligned_free;
    return std::shared_ptr<void>(p, [fr](void* q) { fr(q); });
  }
  void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (p == nullptr) return nullptr;
  return std::shared_ptr<void>(p, [](void* q) { std::free(q); });
}

}  // namespace

absl::StatusOr<std::unique_ptr<Qwen35Model>> Qwen35Model::Open(const std::string& model_dir,
                                                               const Ops& ops,
                                                               const ModelOptions& options) {
  QWEN35_ASSIGN_OR_RETURN(text, ReadTextFile(model_dir + "/config.json"));
  QWEN35_ASSIGN_OR_RETURN(config, ParseQwen35Config(text));
  std::unique_ptr<Qwen35Model> m(new Qwen35Model(config, ops, options));
  if (m->options_.prefill_chunk <= 0) m->options_.prefill_chunk = 512;
  if (m->options_.delta_chunk <= 0) m->options_.delta_chunk = 64;
  if (m->options_.context_length <= 0) m->options_.context_length = config.max_position_embeddings;
  QWEN35_RETURN_IF_ERROR(m->Load(model_dir));
  m->ResetState();
  return m;
}

absl::Status Qwen35Model::Load(const std::string& model_dir) {
  QWEN35_ASSIGN_OR_RETURN(files, WeightFiles::Open(model_dir));
  files_ = std::move(files);
  const Qwen35Config& c = config_;

  // The text weights: model.language_model.* in the published (multimodal)
  // checkpoints, model.* in a text-only save.
  std::string prefix;
  for (const char* p : {"model.language_model.", "model.", "language_model.model."}) {
    if (files_->Has(std::string(p) + "embed_tokens.weight")) {
      prefix = p;
      break;
    }
  }
  if (prefix.empty()) return absl::NotFoundError("no embed_tokens.weight in the checkpoint");

  const oxi_host_services* host = ops_.host();
  auto get = [&](const std::string& name,
                 const std::vector<int64_t>& shape) -> absl::StatusOr<TensorView> {
    QWEN35_ASSIGN_OR_RETURN(t, files_->Get(name));
    if (t.shape != shape) {
      return absl::InvalidArgumentError(absl::StrCat(
          "tensor ", name, " has shape ", ShapeString(t.shape), ", expected ", ShapeString(shape)));
    }
    if (!IsFloatType(t.dtype)) {
      return absl::UnimplementedError(
          absl::StrCat("tensor ", name, " has dtype ", oxi_dtype_name(t.dtype)));
    }
    return t;
  };
  // quant: the block type to hold the matrix in (INVALID: as stored).
  auto matrix = [&](const std::string& name, int64_t rows, int64_t cols, oxi_dtype quant,
                    Matrix* out) -> absl::Status {
    QWEN35_ASSIGN_OR_RETURN(t, get(name, {rows, cols}));
    out->rows = rows;
    out->cols = cols;
    oxi_dtype want = t.dtype;
    if (quant != OXI_DTYPE_INVALID && oxi_dtype_row_bytes(quant, cols) > 0) {
      want = ops_.MatmulWeightDtype(quant, rows, cols);
    }
    const bool aligned = (reinterpret_cast<uintptr_t>(t.data) % 64) == 0;
    if (want == t.dtype && options_.use_mmap && aligned) {
      out->data = t.data;
      out->dtype = t.dtype;
      return absl::OkStatus();
    }
    const size_t bytes = static_cast<size_t>(oxi_dtype_row_bytes(want, cols) * rows);
    out->owned = AllocAligned(host, bytes);
    if (out->owned == nullptr)
      return absl::ResourceExhaustedError(absl::StrCat("allocating ", name));
    if (want == t.dtype) {
      std::memcpy(out->owned.get(), t.data, bytes);
    } else {
      QWEN35_RETURN_IF_ERROR(ops_.Convert(t.data, t.dtype, out->owned.get(), want, rows, cols));
    }
    // The copy is what the model keeps (a tied embedding still read in place
    // by row lookups re-reads just the rows it needs).
    WeightFiles::Release(t);
    out->data = out->owned.get();
    out->dtype = want;
    return absl::OkStatus();
  };
  auto vec = [&](const std::string& name, const std::vector<int64_t>& shape,
                 std::vector<float>* out) -> absl::Status {
    QWEN35_ASSIGN_OR_RETURN(t, get(name, shape));
    out->resize(static_cast<size_t>(t.numel()));
    for (int64_t i = 0; i < t.numel(); ++i) (*out)[i] = LoadFloat(t.data, t.dtype, i);
    WeightFiles::Release(t);
    return absl::OkStatus();
  };

  const int64_t H = c.hidden_size;
  const oxi_dtype quant = options_.weight_dtype;
  QWEN35_RETURN_IF_ERROR(
      matrix(prefix + "embed_tokens.weight", c.vocab_size, H, OXI_DTYPE_INVALID, &embed_));
  QWEN35_RETURN_IF_ERROR(vec(prefix + "norm.weight", {H}, &final_norm_));
  const bool block_quant = quant == OXI_DTYPE_Q8_0 || quant == OXI_DTYPE_Q4_0;
  if (c.tie_word_embeddings && !block_quant) {
    lm_head_ = embed_;
  } else if (c.tie_word_embeddings) {
    // Under q8 and q4 a tied head gets its own Q8_0 copy (the embedding
    // stays as stored for row lookups): it is the largest matrix read per
    // token, and llama.cpp likewise keeps the output matrix at 6 bits or more.
    QWEN35_RETURN_IF_ERROR(
        matrix(prefix + "embed_tokens.weight", c.vocab_size, H, OXI_DTYPE_Q8_0, &lm_head_));
  } else {
    QWEN35_RETURN_IF_ERROR(matrix("lm_head.weight", c.vocab_size, H, quant, &lm_head_));
  }
  layers_.resize(static_cast<size_t>(c.num_hidden_layers));
  for (int64_t i = 0; i < c.num_hidden_layers; ++i) {
    Layer& L = layers_[i];
    L.type = c.layer_types[i];
    const std::string p = absl::StrCat(prefix, "layers.", i, ".");
    QWEN35_RETURN_IF_ERROR(vec(p + "input_layernorm.weight", {H}, &L.input_norm));
    QWEN35_RETURN_IF_ERROR(vec(p + "post_attention_layernorm.weight", {H}, &L.post_norm));
    QWEN35_RETURN_IF_ERROR(
        matrix(p + "mlp.gate_proj.weight", c.intermediate_size, H, quant, &L.gate_proj));
    QWEN35_RETURN_IF_ERROR(
        matrix(p + "mlp.up_proj.weight", c.intermediate_size, H, quant, &L.up_proj));
    QWEN35_RETURN_IF_ERROR(
        matrix(p + "mlp.down_proj.weight", H, c.intermediate_size, quant, &L.down_proj));
    if (L.type == LayerType::kLinearAttention) {
      DeltaNetLayer& d = L.lin;
      const std::string q = p + "linear_attn.";
      const int64_t nv = c.linear_num_value_heads;
      QWEN35_RETURN_IF_ERROR(
          matrix(q + "in_proj_qkv.weight", c.conv_dim(), H, quant, &d.in_proj_qkv));
      QWEN35_RETURN_IF_ERROR(matrix(q + "in_proj_z.weight", c.value_dim(), H, quant, &d.in_proj_z));
      QWEN35_RETURN_IF_ERROR(
          matrix(q + "in_proj_b.weight", nv, H, OXI_DTYPE_INVALID, &d.in_proj_b));
      QWEN35_RETURN_IF_ERROR(
          matrix(q + "in_proj_a.weight", nv, H, OXI_DTYPE_INVALID, &d.in_proj_a));
      QWEN35_RETURN_IF_ERROR(matrix(q + "out_proj.weight", H, c.value_dim(), quant, &d.out_proj));
      QWEN35_RETURN_IF_ERROR(
          vec(q + "conv1d.weight", {c.conv_dim(), 1, c.linear_conv_kernel_dim}, &d.conv_w));
      std::vector<float> a_log;
      QWEN35_RETURN_IF_ERROR(vec(q + "A_log", {nv}, &a_log));
      d.neg_a.resize(nv);
      for (int64_t h = 0; h < nv; ++h) d.neg_a[h] = -std::exp(a_log[h]);
      QWEN35_RETURN_IF_ERROR(vec(q + "dt_bias", {nv}, &d.dt_bias));
      QWEN35_RETURN_IF_ERROR(vec(q + "norm.weight", {c.linear_value_head_dim}, &d.norm_w));
    } else {
      AttentionLayer& a = L.attn;
      const std::string q = p + "self_attn.";
      const int64_t hd = c.head_dim;
      QWEN35_RETURN_IF_ERROR(
          matrix(q + "q_proj.weight", 2 * c.num_attention_heads * hd, H, quant, &a.q_proj));
      QWEN35_RETURN_IF_ERROR(
          matrix(q + "k_proj.weight", c.num_key_value_heads * hd, H, quant, &a.k_proj));
      QWEN35_RETURN_IF_ERROR(
          matrix(q + "v_proj.weight", c.num_key_value_heads * hd, H, quant, &a.v_proj));
      QWEN35_RETURN_IF_ERROR(
          matrix(q + "o_proj.weight", H, c.num_attention_heads * hd, quant, &a.o_proj));
      QWEN35_RETURN_IF_ERROR(vec(q + "q_norm.weight", {hd}, &a.q_norm));
      QWEN35_RETURN_IF_ERROR(vec(q + "k_norm.weight", {hd}, &a.k_norm));
    }
    if (options_.progress != nullptr) {
      options_.progress(options_.progress_ctx, static_cast<double>(i + 1),
                        static_cast<double>(c.num_hidden_layers), "loading layers");
    }
  }

  // What the text model does not use: the vision tower, the MTP head.
  int64_t skipped_vision = 0, skipped_mtp = 0, skipped_other = 0;
  for (const auto& kv : files_->tensors()) {
    const std::string& n = kv.first;
    if (absl::StartsWith(n, "model.visual.") || absl::StartsWith(n, "visual.")) {
      ++skipped_vision;
    } else if (absl::StartsWith(n, "mtp.")) {
      ++skipped_mtp;
    } else if (!absl::StartsWith(n, prefix) && n != "lm_head.weight") {
      ++skipped_other;
    }
  }
  sdk::Log(host, OXI_LOG_INFO, "qwen35",
           absl::StrCat("loaded ", c.num_hidden_layers, " layers; skipped ", skipped_vision,
                        " vision, ", skipped_mtp, " MTP and ", skipped_other, " other tensors"));

  // RoPE frequencies as transformers computes them (float32).
  const int64_t rd = c.rotary_dim;
  inv_freq_.resize(static_cast<size_t>(rd / 2));
  for (int64_t i = 0; i < rd / 2; ++i) {
    const float e = static_cast<float>(2 * i) / static_cast<float>(rd);
    inv_freq_[i] = 1.0f / std::pow(static_cast<float>(c.rope_theta), e);
  }
  return absl::OkStatus();
}

void Qwen35Model::ResetState() {
  const Qwen35Config& c = config_;
  for (Layer& L : layers_) {
    if (L.type == LayerType::kLinearAttention) {
      L.lin.conv_state.assign(static_cast<size_t>((c.linear_conv_kernel_dim - 1) * c.conv_dim()),
                              0.0f);
      L.lin.recurrent_state.assign(
          static_cast<size_t>(c.linear_num_value_heads * c.linear_key_head_dim *
                              c.linear_value_head_dim),
          0.0f);
    } else {
      L.attn.k_cache.clear();
      L.attn.v_cache.clear();
    }
  }
  n_past_ = 0;
}

absl::Status Qwen35Model::Truncate(int64_t n_keep) {
  if (n_keep < 0) return absl::InvalidArgumentError("truncate: negative n_keep");
  if (n_keep >= n_past_) return absl::OkStatus();
  // The recurrent states cannot be rewound: replay the kept prefix.
  std::vector<int32_t> keep(tokens_.begin(), tokens_.begin() + n_keep);
  ResetState();
  tokens_.clear();
  if (n_keep == 0) return absl::OkStatus();
  return Forward(keep.data(), n_keep, nullptr);
}

absl::Status Qwen35Model::Forward(const int32_t* tokens, int64_t n, float* logits) {
  if (n <= 0) return absl::InvalidArgumentError("forward: no tokens");
  if (options_.context_length > 0 && n_past_ + n > options_.context_length) {
    return absl::OutOfRangeError(absl::StrCat(
        "forward: ", n_past_ + n, " tokens exceed the context of ", options_.context_length));
  }
  const int64_t block = options_.prefill_chunk;
  for (int64_t s = 0; s < n; s += block) {
    const int64_t m = std::min(block, n - s);
    const bool last = s + m == n;
    absl::Status st = ForwardBlock(tokens + s, m, last ? logits : nullptr);
    if (!st.ok()) {
      // The states are half-updated: start over from a clean, empty sequence.
      ResetState();
      tokens_.clear();
      return st;
    }
    tokens_.insert(tokens_.end(), tokens + s, tokens + s + m);
  }
  return absl::OkStatus();
}

absl::Status Qwen35Model::ForwardBlock(const int32_t* tokens, int64_t n, float* logits) {
  const Qwen35Config& c = config_;
  const int64_t H = c.hidden_size;
  const float eps = static_cast<float>(c.rms_norm_eps);
  std::vector<float> x(static_cast<size_t>(n * H)), h(x.size()), out(x.size());
  QWEN35_RETURN_IF_ERROR(
      ops_.GetRows(embed_.data, embed_.dtype, c.vocab_size, H, tokens, n, x.data()));
  for (Layer& L : layers_) {
    QWEN35_RETURN_IF_ERROR(ops_.RmsNorm(x.data(), L.input_norm.data(), 1.0f, n, H, eps, h.data()));
    if (L.type == LayerType::kLinearAttention) {
      QWEN35_RETURN_IF_ERROR(DeltaNet(L, h.data(), n, out.data()));
    } else {
      QWEN35_RETURN_IF_ERROR(Attention(L, h.data(), n, out.data()));
    }
    QWEN35_RETURN_IF_ERROR(
        ops_.Binary(OXI_BINARY_ADD, x.data(), out.data(), n * H, n * H, x.data()));
    QWEN35_RETURN_IF_ERROR(ops_.RmsNorm(x.data(), L.post_norm.data(), 1.0f, n, H, eps, h.data()));
    QWEN35_RETURN_IF_ERROR(Mlp(L, h.data(), n, out.data()));
    QWEN35_RETURN_IF_ERROR(
        ops_.Binary(OXI_BINARY_ADD, x.data(), out.data(), n * H, n * H, x.data()));
  }
  n_past_ += n;
  if (logits != nullptr) {
    const float* last = x.data() + (n - 1) * H;
    QWEN35_RETURN_IF_ERROR(ops_.RmsNorm(last, final_norm_.data(), 1.0f, 1, H, eps, h.data()));
    QWEN35_RETURN_IF_ERROR(
        ops_.MatMul(h.data(), 1, H, lm_head_.data, lm_head_.dtype, c.vocab_size, logits));
  }
  return absl::OkStatus();
}

absl::Status Qwen35Model::Mlp(Layer& L, const float* h, int64_t n, float* out) {
  const int64_t H = config_.hidden_size, I = config_.intermediate_size;
  std::vector<float> g(static_cast<size_t>(n * I)), u(g.size());
  QWEN35_RETURN_IF_ERROR(ops_.MatMul(h, n, H, L.gate_proj.data, L.gate_proj.dtype, I, g.data()));
  QWEN35_RETURN_IF_ERROR(ops_.MatMul(h, n, H, L.up_proj.data, L.up_proj.dtype, I, u.data()));
  QWEN35_RETURN_IF_ERROR(ops_.Unary(OXI_UNARY_SILU, g.data(), n * I, g.data()));
  QWEN35_RETURN_IF_ERROR(ops_.Binary(OXI_BINARY_MUL, g.data(), u.data(), n * I, n * I, g.data()));
  return ops_.MatMul(g.data(), n, I, L.down_proj.data, L.down_proj.dtype, H, out);
}

absl::Status Qwen35Model::DeltaNet(Layer& L, const float* h, int64_t n, float* out) {
  const Qwen35Config& c = config_;
  DeltaNetLayer& d = L.lin;
  const int64_t H = c.hidden_size, CD = c.conv_dim(), KD = c.key_dim(), VD = c.value_dim();
  const int64_t nk = c.linear_num_key_heads, nv = c.linear_num_value_heads;
  const int64_t dk = c.linear_key_head_dim, dv = c.linear_value_head_dim;
  std::vector<float> qkv(static_cast<size_t>(n * CD)), mixed(qkv.size());
  std::vector<float> z(static_cast<size_t>(n * VD)), b(static_cast<size_t>(n * nv)), a(b.size());
  QWEN35_RETURN_IF_ERROR(
      ops_.MatMul(h, n, H, d.in_proj_qkv.data, d.in_proj_qkv.dtype, CD, qkv.data()));
  QWEN35_RETURN_IF_ERROR(ops_.MatMul(h, n, H, d.in_proj_z.data, d.in_proj_z.dtype, VD, z.data()));
  QWEN35_RETURN_IF_ERROR(ops_.MatMul(h, n, H, d.in_proj_b.data, d.in_proj_b.dtype, nv, b.data()));
  QWEN35_RETURN_IF_ERROR(ops_.MatMul(h, n, H, d.in_proj_a.data, d.in_proj_a.dtype, nv, a.data()));

  // Causal depthwise conv + SiLU (TODO: a backend op).
  CausalConv1dSilu(ops_.host(), n, CD, c.linear_conv_kernel_dim, d.conv_w.data(),
                   d.conv_state.data(), qkv.data(), mixed.data());

  std::vector<float> q(static_cast<size_t>(n * KD)), k(q.size()), v(static_cast<size_t>(n * VD));
  for (int64_t t = 0; t < n; ++t) {
    const float* row = mixed.data() + t * CD;
    std::memcpy(q.data() + t * KD, row, KD * sizeof(float));
    std::memcpy(k.data() + t * KD, row + KD, KD * sizeof(float));
    std::memcpy(v.data() + t * VD, row + 2 * KD, VD * sizeof(float));
  }
  L2NormRows(q.data(), n * nk, dk, 1e-6f, 1.0f / std::sqrt(static_cast<float>(dk)));
  L2NormRows(k.data(), n * nk, dk, 1e-6f, 1.0f);

  // beta = sigmoid(b); g = -exp(A_log) * softplus(a + dt_bias).
  std::vector<float> beta(b.size()), g(a.size());
  QWEN35_RETURN_IF_ERROR(ops_.Unary(OXI_UNARY_SIGMOID, b.data(), n * nv, beta.data()));
  QWEN35_RETURN_IF_ERROR(
      ops_.Binary(OXI_BINARY_ADD, a.data(), d.dt_bias.data(), n * nv, nv, g.data()));
  QWEN35_RETURN_IF_ERROR(ops_.Unary(OXI_UNARY_SOFTPLUS, g.data(), n * nv, g.data()));
  QWEN35_RETURN_IF_ERROR(
      ops_.Binary(OXI_BINARY_MUL, g.data(), d.neg_a.data(), n * nv, nv, g.data()));

  // The gated delta rule (TODO: a backend op).
  std::vector<float> core(static_cast<size_t>(n * VD));
  const DeltaDims dims{nk, nv, dk, dv};
  if (n == 1 || force_recurrent_) {
    GatedDeltaRecurrent(ops_.host(), dims, n, q.data(), k.data(), v.data(), g.data(), beta.data(),
                        d.recurrent_state.data(), core.data());
  } else {
    GatedDeltaChunked(ops_.host(), dims, n, options_.delta_chunk, q.data(), k.data(), v.data(),
                      g.data(), beta.data(), d.recurrent_state.data(), core.data());
  }

  // Gated RMSNorm per value head: norm(core) * w * silu(z).
  const float eps = static_cast<float>(c.rms_norm_eps);
  QWEN35_RETURN_IF_ERROR(
      ops_.RmsNorm(core.data(), d.norm_w.data(), 0.0f, n * nv, dv, eps, core.data()));
  QWEN35_RETURN_IF_ERROR(ops_.Unary(OXI_UNARY_SILU, z.data(), n * VD, z.data()));
  QWEN35_RETURN_IF_ERROR(
      ops_.Binary(OXI_BINARY_MUL, core.data(), z.data(), n * VD, n * VD, core.data()));
  return ops_.MatMul(core.data(), n, VD, d.out_proj.data, d.out_proj.dtype, H, out);
}

absl::Status Qwen35Model::Attention(Layer& L, const float* h, int64_t n, float* out) {
  const Qwen35Config& c = config_;
  AttentionLayer& A = L.attn;
  const int64_t H = c.hidden_size, hd = c.head_dim;
  const int64_t nh = c.num_attention_heads, nkv = c.num_key_value_heads;
  std::vector<float> qg(static_cast<size_t>(n * nh * 2 * hd));
  std::vector<float> q(static_cast<size_t>(n * nh * hd)), gate(q.size());
  std::vector<float> k(static_cast<size_t>(n * nkv * hd)), v(k.size());
  QWEN35_RETURN_IF_ERROR(
      ops_.MatMul(h, n, H, A.q_proj.data, A.q_proj.dtype, nh * 2 * hd, qg.data()));
  QWEN35_RETURN_IF_ERROR(ops_.MatMul(h, n, H, A.k_proj.data, A.k_proj.dtype, nkv * hd, k.data()));
  QWEN35_RETURN_IF_ERROR(ops_.MatMul(h, n, H, A.v_proj.data, A.v_proj.dtype, nkv * hd, v.data()));
  // q_proj rows per head: [query (head_dim) | gate (head_dim)].
  for (int64_t t = 0; t < n; ++t) {
    for (int64_t i = 0; i < nh; ++i) {
      const float* src = qg.data() + (t * nh + i) * 2 * hd;
      std::memcpy(q.data() + (t * nh + i) * hd, src, hd * sizeof(float));
      std::memcpy(gate.data() + (t * nh + i) * hd, src + hd, hd * sizeof(float));
    }
  }
  const float eps = static_cast<float>(c.rms_norm_eps);
  QWEN35_RETURN_IF_ERROR(ops_.RmsNorm(q.data(), A.q_norm.data(), 1.0f, n * nh, hd, eps, q.data()));
  QWEN35_RETURN_IF_ERROR(ops_.RmsNorm(k.data(), A.k_norm.data(), 1.0f, n * nkv, hd, eps, k.data()));
  std::vector<int32_t> pos(static_cast<size_t>(n));
  for (int64_t t = 0; t < n; ++t) pos[t] = static_cast<int32_t>(n_past_ + t);
  if (c.rotary_dim > 0) {
    QWEN35_RETURN_IF_ERROR(ops_.Rope(q.data(), n, static_cast<int32_t>(nh),
                                     static_cast<int32_t>(hd), static_cast<int32_t>(c.rotary_dim),
                                     pos.data(), inv_freq_.data()));
    QWEN35_RETURN_IF_ERROR(ops_.Rope(k.data(), n, static_cast<int32_t>(nkv),
                                     static_cast<int32_t>(hd), static_cast<int32_t>(c.rotary_dim),
                                     pos.data(), inv_freq_.data()));
  }
  // Append to the KV cache (rows [pos][nkv][hd]).
  A.k_cache.insert(A.k_cache.end(), k.begin(), k.end());
  A.v_cache.insert(A.v_cache.end(), v.begin(), v.end());
  const int64_t n_kv = n_past_ + n;
  std::vector<int32_t> kv_pos(static_cast<size_t>(n_kv));
  for (int64_t i = 0; i < n_kv; ++i) kv_pos[i] = static_cast<int32_t>(i);
  std::vector<float> att(q.size());
  oxi_attention_params p;
  std::memset(&p, 0, sizeof(p));
  p.struct_size = sizeof(p);
  p.n_q = n;
  p.n_kv = n_kv;
  p.n_heads = static_cast<int32_t>(nh);
  p.n_kv_heads = static_cast<int32_t>(nkv);
  p.head_dim = static_cast<int32_t>(hd);
  p.v_head_dim = static_cast<int32_t>(hd);
  p.q = q.data();
  p.k = A.k_cache.data();
  p.v = A.v_cache.data();
  p.q_pos = pos.data();
  p.kv_pos = kv_pos.data();
  p.out = att.data();
  p.scale = 1.0f / std::sqrt(static_cast<float>(hd));
  p.softcap = 0.0f;
  p.causal = 1;
  p.window = 0;
  QWEN35_RETURN_IF_ERROR(ops_.Attention(p));
  // Output gate: attn * sigmoid(gate).
  QWEN35_RETURN_IF_ERROR(ops_.Unary(OXI_UNARY_SIGMOID, gate.data(), n * nh * hd, gate.data()));
  QWEN35_RETURN_IF_ERROR(
      ops_.Binary(OXI_BINARY_MUL, att.data(), gate.data(), n * nh * hd, n * nh * hd, att.data()));
  return ops_.MatMul(att.data(), n, nh * hd, A.o_proj.data, A.o_proj.dtype, H, out);
}

}  // namespace qwen35
}  // namespace oxinfer
