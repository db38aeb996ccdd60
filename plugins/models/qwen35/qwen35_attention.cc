// Gated full attention (transformers' Qwen3_5Attention): q_proj holds, per
// head, the query then an output gate; q/k RMSNorm (zero-centred), partial
// RoPE, grouped-query attention over the sequence's KV cache, sigmoid gate.
#include <cmath>

#include "plugins/models/qwen35/qwen35_layers.h"

namespace oxinfer {
namespace qwen35 {

sdk::Status AttentionLayer(const Block& b, const AttentionWeights& w, int64_t index,
                           const sdk::Tensor& h, const sdk::Tensor& out) {
  const Qwen35Config& c = *b.config;
  const sdk::Compute& cx = *b.cx;
  const Workspace& ws = b.ws;
  const int64_t hd = c.head_dim, nh = c.num_attention_heads, nkv = c.num_key_value_heads;
  const int64_t rows = b.rows;
  const float eps = static_cast<float>(c.rms_norm_eps);
  OXI_RETURN_IF_ERROR(cx.MatMul(h, w.q_proj, ws.qg));
  OXI_RETURN_IF_ERROR(cx.MatMul(h, w.k_proj, ws.ak));
  OXI_RETURN_IF_ERROR(cx.MatMul(h, w.v_proj, ws.av));

  // One row per head: [query | gate]. The query norm reads the first half
  // and writes the packed queries.
  const sdk::Tensor qg_heads = ws.qg.Reshape(rows * nh, 2 * hd);
  const sdk::Tensor k_heads = ws.ak.Reshape(rows * nkv, hd);
  OXI_RETURN_IF_ERROR(
      cx.RmsNorm(qg_heads.Cols(0, hd), w.q_norm, ws.aq.Reshape(rows * nh, hd), eps, 1.0f));
  OXI_RETURN_IF_ERROR(cx.RmsNorm(k_heads, w.k_norm, k_heads, eps, 1.0f));
  if (c.rotary_dim > 0) {
    const int32_t rd = static_cast<int32_t>(c.rotary_dim);
    OXI_RETURN_IF_ERROR(cx.Rope(ws.aq, b.pos, b.inv_freq, ws.aq, static_cast<int32_t>(nh),
                                static_cast<int32_t>(hd), rd));
    OXI_RETURN_IF_ERROR(cx.Rope(ws.ak, b.pos, b.inv_freq, ws.ak, static_cast<int32_t>(nkv),
                                static_cast<int32_t>(hd), rd));
  }

  for (const Piece& p : b.pieces) {
    const sdk::Tensor keys = b.sequences->Keys(p.seq, index);
    const sdk::Tensor values = b.sequences->Values(p.seq, index);
    OXI_RETURN_IF_ERROR(cx.Copy(ws.ak.Rows(p.row0, p.n), keys.Rows(p.pos0, p.n)));
    OXI_RETURN_IF_ERROR(cx.Copy(ws.av.Rows(p.row0, p.n), values.Rows(p.pos0, p.n)));
    oxi_attention_args a = sdk::Compute::AttentionArgs();
    a.q = ws.aq.Rows(p.row0, p.n);
    a.k = keys.Rows(0, p.pos0 + p.n);
    a.v = values.Rows(0, p.pos0 + p.n);
    a.q_pos = b.pos.Cols(p.row0, p.n);  // the cache's slots are positions 0, 1, ...
    a.out = ws.att.Rows(p.row0, p.n);
    a.n_heads = static_cast<int32_t>(nh);
    a.n_kv_heads = static_cast<int32_t>(nkv);
    a.head_dim = static_cast<int32_t>(hd);
    a.v_head_dim = static_cast<int32_t>(hd);
    a.scale = 1.0f / std::sqrt(static_cast<float>(hd));
    a.causal = 1;
    OXI_RETURN_IF_ERROR(cx.Attention(a));
  }

  // attn * sigmoid(gate), the gate being each head row's second half.
  const sdk::Tensor att_heads = ws.att.Reshape(rows * nh, hd);
  OXI_RETURN_IF_ERROR(cx.Glu(OXI_UNARY_SIGMOID, qg_heads.Cols(hd, hd), att_heads, att_heads));
  return cx.MatMul(ws.att, w.o_proj, out);
}

}  // namespace qwen35
}  // namespace oxinfer
