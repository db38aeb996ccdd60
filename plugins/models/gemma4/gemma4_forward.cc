#include "plugins/models/gemma4/gemma4_forward.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace oxinfer {
namespace gemma4 {
namespace {

// Logit rows computed per LM-head matmul (bounds the scratch: rows x vocab).
constexpr int64_t kLogitRowsPerBlock = 64;

// The first rows x cols elements of a packed temporary, as a packed matrix.
sdk::Tensor Take(const sdk::Tensor& t, int64_t rows, int64_t cols) { return t.Reshape(rows, cols); }

}  // namespace

sdk::Status FeedForward(const sdk::Compute& cx, const LayerWeights& lw, float eps,
                        const sdk::Tensor& x, const sdk::Tensor& h, const sdk::Tensor& gate,
                        const sdk::Tensor& up) {
  OXI_RETURN_IF_ERROR(cx.RmsNorm(x, lw.pre_ff_norm, h, eps));
  OXI_RETURN_IF_ERROR(cx.MatMul(h, lw.gate_proj, gate));
  OXI_RETURN_IF_ERROR(cx.MatMul(h, lw.up_proj, up));
  OXI_RETURN_IF_ERROR(cx.Glu(OXI_UNARY_GELU_TANH, gate, up, gate));
  OXI_RETURN_IF_ERROR(cx.MatMul(gate, lw.down_proj, h));
  OXI_RETURN_IF_ERROR(cx.RmsNorm(h, lw.post_ff_norm, h, eps));
  return cx.Add(x, h, x);
}

sdk::Status Decoder::Step(const std::vector<Piece>& pieces) {
  scratch_.Reset();
  Activations a;
  OXI_RETURN_IF_ERROR(Embed(pieces, &a));
  OXI_RETURN_IF_ERROR(AllocateTemporaries(&a));
  const int first_shared = cfg_.first_kv_shared();
  for (int li = 0; li < cfg_.num_layers; ++li) {
    if (li == first_shared) {
      OXI_RETURN_IF_ERROR(Compact(pieces, &a));
      if (a.rows == 0) return sdk::OkStatus();  // no logits wanted: the rest computes nothing
    }
    OXI_RETURN_IF_ERROR(Layer(li, a).WithContext(sdk::StrCat("gemma4: layer ", li)));
  }
  if (first_shared == cfg_.num_layers) OXI_RETURN_IF_ERROR(Compact(pieces, &a));
  if (a.rows == 0) return sdk::OkStatus();
  return Logits(pieces, a);
}

sdk::Status Decoder::Embed(const std::vector<Piece>& pieces, Activations* a) {
  const int64_t H = cfg_.hidden_size;
  int64_t m = 0;
  for (const Piece& p : pieces) m += p.n;
  // Token ids (pad where an embedding row comes in, and for media placeholder
  // ids: see the header) and positions.
  std::vector<int32_t> ids(m), pos(m);
  a->pieces.resize(pieces.size());
  int64_t r = 0;
  for (size_t i = 0; i < pieces.size(); ++i) {
    const Piece& p = pieces[i];
    Rows& pr = a->pieces[i];
    pr.seq = p.seq;
    pr.r0 = r;
    pr.n = p.n;
    pr.p0 = store_->at(p.seq).length;
    pr.kv_len = pr.p0 + p.n;
    for (int64_t t = 0; t < p.n; ++t, ++r) {
      const bool pad =
          p.tokens == nullptr || p.UsesEmbedding(t) || cfg_.tokens.IsMediaPlaceholder(p.tokens[t]);
      ids[r] = pad ? cfg_.tokens.pad_token_id : p.tokens[t];
      pos[r] = static_cast<int32_t>(pr.p0 + t);
    }
  }
  a->rows = m;
  OXI_ASSIGN_OR_RETURN(sdk::Tensor ids_t, scratch_.I32(ids.data(), m));
  OXI_ASSIGN_OR_RETURN(a->pos, scratch_.I32(pos.data(), m));
  const bool rings = store_->has_rings();
  for (size_t i = 0; i < pieces.size(); ++i) {
    Rows& pr = a->pieces[i];
    pr.q_pos = a->pos.Cols(pr.r0, pr.n);
    if (!rings) continue;
    const std::vector<int32_t> slots = store_->TakeRingSlots(pr.seq, pr.p0, pr.n);
    OXI_ASSIGN_OR_RETURN(pr.ring_ids, scratch_.I32(slots.data(), pr.n));
    const std::vector<int32_t>& ring_pos = store_->at(pr.seq).ring_pos;
    OXI_ASSIGN_OR_RETURN(pr.ring_pos,
                         scratch_.I32(ring_pos.data(), static_cast<int64_t>(ring_pos.size())));
  }

  // Token embeddings scaled by sqrt(hidden) (a float32 constant, as
  // transformers'), then the given rows in place of theirs.
  OXI_ASSIGN_OR_RETURN(a->x, scratch_.F32(m, H));
  OXI_RETURN_IF_ERROR(cx_.GetRows(w_.embed, ids_t, a->x));
  OXI_RETURN_IF_ERROR(cx_.Scale(a->x, a->x, std::sqrt(static_cast<float>(H))));
  for (size_t i = 0; i < pieces.size(); ++i) {
    const Piece& p = pieces[i];
    for (int64_t t = 0; t < p.n;) {
      if (!p.UsesEmbedding(t)) {
        ++t;
        continue;
      }
      int64_t end = t + 1;
      while (end < p.n && p.UsesEmbedding(end)) ++end;
      OXI_RETURN_IF_ERROR(cx_.Write(a->x.Rows(a->pieces[i].r0 + t, end - t), p.embeddings + t * H));
      t = end;
    }
  }
  if (cfg_.hidden_size_per_layer_input > 0) OXI_RETURN_IF_ERROR(PerLayerInputs(ids_t, a));
  return sdk::OkStatus();
}

// (norm(proj(x) / sqrt(H)) + embed_per_layer(ids) * sqrt(P)) / sqrt(2), as
// [rows][layers * P]: layer l reads columns [l * P, (l + 1) * P).
sdk::Status Decoder::PerLayerInputs(const sdk::Tensor& ids, Activations* a) {
  const int64_t m = a->rows, L = cfg_.num_layers, P = cfg_.hidden_size_per_layer_input;
  const float eps = static_cast<float>(cfg_.rms_norm_eps);
  OXI_ASSIGN_OR_RETURN(sdk::Tensor tok, scratch_.F32(m, L * P));
  OXI_RETURN_IF_ERROR(cx_.GetRows(w_.embed_per_layer, ids, tok));
  OXI_RETURN_IF_ERROR(cx_.Scale(tok, tok, std::sqrt(static_cast<float>(P))));
  OXI_ASSIGN_OR_RETURN(sdk::Tensor proj, scratch_.F32(m, L * P));
  OXI_RETURN_IF_ERROR(cx_.MatMul(a->x, w_.per_layer_model_projection, proj));
  OXI_RETURN_IF_ERROR(cx_.Scale(
      proj, proj, static_cast<float>(std::pow(static_cast<double>(cfg_.hidden_size), -0.5))));
  const sdk::Tensor per_row = proj.Reshape(m * L, P);
  OXI_RETURN_IF_ERROR(cx_.RmsNorm(per_row, w_.per_layer_projection_norm, per_row, eps));
  OXI_RETURN_IF_ERROR(cx_.Add(proj, tok, proj));
  OXI_RETURN_IF_ERROR(cx_.Scale(proj, proj, static_cast<float>(std::pow(2.0, -0.5))));
  a->ple = proj;
  return sdk::OkStatus();
}

sdk::Status Decoder::AllocateTemporaries(Activations* a) {
  int64_t q = 0, kv = 0, inter = 0;
  for (const LayerConfig& c : cfg_.layers) {
    q = std::max<int64_t>(q, int64_t{cfg_.num_heads} * c.head_dim);
    kv = std::max<int64_t>(kv, int64_t{c.num_kv_heads} * c.head_dim);
    inter = std::max<int64_t>(inter, c.intermediate_size);
  }
  const int64_t m = a->rows;
  OXI_ASSIGN_OR_RETURN(a->h, scratch_.F32(m, cfg_.hidden_size));
  OXI_ASSIGN_OR_RETURN(a->q, scratch_.F32(m, q));
  OXI_ASSIGN_OR_RETURN(a->k, scratch_.F32(m, kv));
  OXI_ASSIGN_OR_RETURN(a->v, scratch_.F32(m, kv));
  OXI_ASSIGN_OR_RETURN(a->attn, scratch_.F32(m, q));
  OXI_ASSIGN_OR_RETURN(a->gate, scratch_.F32(m, inter));
  OXI_ASSIGN_OR_RETURN(a->up, scratch_.F32(m, inter));
  if (cfg_.hidden_size_per_layer_input > 0) {
    OXI_ASSIGN_OR_RETURN(a->ple_gate, scratch_.F32(m, cfg_.hidden_size_per_layer_input));
  }
  return sdk::OkStatus();
}

sdk::Status Decoder::Layer(int li, const Activations& a) {
  const LayerConfig& c = cfg_.layers[li];
  const LayerWeights& lw = w_.layers[li];
  const int64_t m = a.rows, H = cfg_.hidden_size, P = cfg_.hidden_size_per_layer_input;
  const int64_t nq = cfg_.num_heads, nkv = c.num_kv_heads, hd = c.head_dim;
  const int32_t nq32 = cfg_.num_heads, nkv32 = c.num_kv_heads, hd32 = c.head_dim;
  const float eps = static_cast<float>(cfg_.rms_norm_eps);
  const sdk::Tensor& rope = w_.rope_tables[lw.rope_table];
  const sdk::Tensor x = a.x, h = Take(a.h, m, H);

  // ---- attention: q/k norms, RoPE, k = v on global layers, caches ----
  OXI_RETURN_IF_ERROR(cx_.RmsNorm(x, lw.input_norm, h, eps));
  const sdk::Tensor q = Take(a.q, m, nq * hd);
  OXI_RETURN_IF_ERROR(cx_.MatMul(h, lw.q_proj, q));
  OXI_RETURN_IF_ERROR(cx_.RmsNorm(q.Reshape(m * nq, hd), lw.q_norm, q.Reshape(m * nq, hd), eps));
  OXI_RETURN_IF_ERROR(cx_.Rope(q, a.pos, rope, q, nq32, hd32, hd32));
  if (!c.kv_shared) {
    const sdk::Tensor k = Take(a.k, m, nkv * hd), v = Take(a.v, m, nkv * hd);
    const sdk::Tensor k_heads = k.Reshape(m * nkv, hd), v_heads = v.Reshape(m * nkv, hd);
    OXI_RETURN_IF_ERROR(cx_.MatMul(h, lw.k_proj, k));
    if (c.k_eq_v) {
      // V is the raw key projection (before k_norm and RoPE), normalised without a weight.
      OXI_RETURN_IF_ERROR(cx_.RmsNorm(k_heads, sdk::Tensor(), v_heads, eps));
    } else {
      OXI_RETURN_IF_ERROR(cx_.MatMul(h, lw.v_proj, v));
      OXI_RETURN_IF_ERROR(cx_.RmsNorm(v_heads, sdk::Tensor(), v_heads, eps));
    }
    OXI_RETURN_IF_ERROR(cx_.RmsNorm(k_heads, lw.k_norm, k_heads, eps));
    OXI_RETURN_IF_ERROR(cx_.Rope(k, a.pos, rope, k, nkv32, hd32, hd32));
    for (const Rows& pr : a.pieces) {
      const LayerCache& kv = store_->at(pr.seq).caches[li];
      if (c.sliding) {
        OXI_RETURN_IF_ERROR(cx_.SetRows(k.Rows(pr.r0, pr.n), pr.ring_ids, kv.k));
        OXI_RETURN_IF_ERROR(cx_.SetRows(v.Rows(pr.r0, pr.n), pr.ring_ids, kv.v));
      } else {
        OXI_RETURN_IF_ERROR(cx_.Copy(k.Rows(pr.r0, pr.n), kv.k.t.Rows(pr.p0, pr.n)));
        OXI_RETURN_IF_ERROR(cx_.Copy(v.Rows(pr.r0, pr.n), kv.v.t.Rows(pr.p0, pr.n)));
      }
    }
  }
  const sdk::Tensor attn = Take(a.attn, m, nq * hd);
  OXI_RETURN_IF_ERROR(Attention(li, a, q, attn));
  OXI_RETURN_IF_ERROR(cx_.MatMul(attn, lw.o_proj, h));
  OXI_RETURN_IF_ERROR(cx_.RmsNorm(h, lw.post_attn_norm, h, eps));
  OXI_RETURN_IF_ERROR(cx_.Add(x, h, x));

  // ---- MLP: down(gelu_tanh(gate(h)) * up(h)) ----
  const int64_t I = c.intermediate_size;
  OXI_RETURN_IF_ERROR(FeedForward(cx_, lw, eps, x, h, Take(a.gate, m, I), Take(a.up, m, I)));

  // ---- per-layer input: proj(gelu_tanh(gate(x)) * ple[layer]) ----
  if (P > 0) {
    const sdk::Tensor g = Take(a.ple_gate, m, P);
    OXI_RETURN_IF_ERROR(cx_.MatMul(x, lw.per_layer_input_gate, g));
    OXI_RETURN_IF_ERROR(cx_.Glu(OXI_UNARY_GELU_TANH, g, a.ple.Cols(li * P, P), g));
    OXI_RETURN_IF_ERROR(cx_.MatMul(g, lw.per_layer_projection, h));
    OXI_RETURN_IF_ERROR(cx_.RmsNorm(h, lw.post_per_layer_input_norm, h, eps));
    OXI_RETURN_IF_ERROR(cx_.Add(x, h, x));
  }
  if (lw.layer_scalar != 1.0f) OXI_RETURN_IF_ERROR(cx_.Scale(x, x, lw.layer_scalar));
  return sdk::OkStatus();
}

// Per piece, on its sequence's cache of the layer that owns the K/V (the
// source layer's for KV-shared layers). Rings carry their slots' positions;
// global caches are in position order.
sdk::Status Decoder::Attention(int li, const Activations& a, const sdk::Tensor& q,
                               const sdk::Tensor& out) {
  const LayerConfig& c = cfg_.layers[li];
  for (const Rows& pr : a.pieces) {
    if (pr.n == 0) continue;
    const LayerCache& kv = store_->at(pr.seq).caches[c.kv_source];
    oxi_attention_args args = sdk::Compute::AttentionArgs();
    args.q = q.Rows(pr.r0, pr.n);
    args.out = out.Rows(pr.r0, pr.n);
    args.q_pos = pr.q_pos;
    if (c.sliding) {
      args.k = kv.k.t;
      args.v = kv.v.t;
      args.kv_pos = pr.ring_pos;
    } else {
      args.k = kv.k.t.Rows(0, pr.kv_len);
      args.v = kv.v.t.Rows(0, pr.kv_len);
    }
    args.n_heads = cfg_.num_heads;
    args.n_kv_heads = c.num_kv_heads;
    args.head_dim = c.head_dim;
    args.v_head_dim = c.head_dim;
    args.scale = 1.0f;  // q and k are RMS-normalised; Gemma 4 uses no 1/sqrt(d)
    args.causal = 1;
    args.window = c.sliding ? cfg_.sliding_window : 0;
    OXI_RETURN_IF_ERROR(cx_.Attention(args));
  }
  return sdk::OkStatus();
}

sdk::Status Decoder::Compact(const std::vector<Piece>& pieces, Activations* a) {
  std::vector<int32_t> keep, pos;
  for (size_t i = 0; i < pieces.size(); ++i) {
    const Rows& pr = a->pieces[i];
    const int64_t n = pieces[i].logit_rows();
    for (int64_t t = pr.n - n; t < pr.n; ++t) {
      keep.push_back(static_cast<int32_t>(pr.r0 + t));
      pos.push_back(static_cast<int32_t>(pr.p0 + t));
    }
  }
  const int64_t rows = static_cast<int64_t>(keep.size());
  if (rows == a->rows) return sdk::OkStatus();  // every row is wanted
  a->rows = rows;
  if (rows == 0) return sdk::OkStatus();
  OXI_ASSIGN_OR_RETURN(sdk::Tensor ids, scratch_.I32(keep.data(), rows));
  OXI_ASSIGN_OR_RETURN(a->pos, scratch_.I32(pos.data(), rows));
  OXI_ASSIGN_OR_RETURN(sdk::Tensor x, scratch_.F32(rows, cfg_.hidden_size));
  OXI_RETURN_IF_ERROR(cx_.GetRows(a->x, ids, x));
  a->x = x;
  if (!a->ple.empty()) {
    OXI_ASSIGN_OR_RETURN(sdk::Tensor ple, scratch_.F32(rows, a->ple.cols));
    OXI_RETURN_IF_ERROR(cx_.GetRows(a->ple, ids, ple));
    a->ple = ple;
  }
  int64_t r = 0;
  for (size_t i = 0; i < pieces.size(); ++i) {
    Rows& pr = a->pieces[i];
    const int64_t n = pieces[i].logit_rows();
    pr.p0 += pr.n - n;
    pr.r0 = r;
    pr.n = n;
    pr.q_pos = a->pos.Cols(r, n);
    pr.ring_ids = sdk::Tensor();  // no layer from here on writes a cache
    r += n;
  }
  return sdk::OkStatus();
}

// Final norm, tied LM head, softcapping as transformers computes it:
// tanh(logits / cap) * cap.
sdk::Status Decoder::Logits(const std::vector<Piece>& pieces, const Activations& a) {
  const int64_t V = cfg_.vocab_size, H = cfg_.hidden_size;
  std::vector<float*> dest;
  for (const Piece& p : pieces) {
    for (int64_t j = 0; j < p.logit_rows(); ++j) dest.push_back(p.logits_out + j * V);
  }
  const sdk::Tensor hn = Take(a.h, a.rows, H);
  OXI_RETURN_IF_ERROR(cx_.RmsNorm(a.x, w_.final_norm, hn, static_cast<float>(cfg_.rms_norm_eps)));
  int64_t row = 0;
  for (const Piece& p : pieces) {
    if (p.hidden_out != nullptr && p.logit_rows() > 0) {
      OXI_RETURN_IF_ERROR(cx_.Read(hn.Rows(row, p.logit_rows()), p.hidden_out));
    }
    row += p.logit_rows();
  }
  const int64_t block = std::min(a.rows, kLogitRowsPerBlock);
  OXI_ASSIGN_OR_RETURN(sdk::Tensor logits, scratch_.F32(block, V));
  const float cap = static_cast<float>(cfg_.final_logit_softcapping);
  for (int64_t b = 0; b < a.rows; b += block) {
    const int64_t n = std::min(block, a.rows - b);
    const sdk::Tensor lg = logits.Rows(0, n);
    OXI_RETURN_IF_ERROR(cx_.MatMul(hn.Rows(b, n), w_.lm_head(), lg));
    if (cap > 0) {
      OXI_RETURN_IF_ERROR(cx_.Binary(OXI_BINARY_DIV, lg, w_.softcap, lg));
      OXI_RETURN_IF_ERROR(cx_.Unary(OXI_UNARY_TANH, lg, lg));
      OXI_RETURN_IF_ERROR(cx_.Scale(lg, lg, cap));
    }
    for (int64_t r = 0; r < n; ++r) OXI_RETURN_IF_ERROR(cx_.Read(lg.Row(r), dest[b + r]));
  }
  return sdk::OkStatus();
}

}  // namespace gemma4
}  // namespace oxinfer
