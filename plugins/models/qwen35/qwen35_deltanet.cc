// The Gated DeltaNet mixer (transformers' Qwen3_5GatedDeltaNet, torch path).
#include <cmath>

#include "plugins/models/qwen35/qwen35_layers.h"

namespace oxinfer {
namespace qwen35 {
namespace {

constexpr float kL2NormEps = 1e-6f;  // transformers' l2norm default
constexpr int32_t kDeltaChunk = 64;  // transformers' chunk size

// Where the states after row i of a verification piece go (Piece::steps).
uint64_t StepBlock(const Block& b, const Piece& p, int64_t i) {
  return b.sequences->states_bytes() * static_cast<uint64_t>(p.step0 + i + 1);
}

}  // namespace

sdk::Status DeltaNetLayer(const Block& b, const DeltaNetWeights& w, int64_t index,
                          const sdk::Tensor& h, const sdk::Tensor& out) {
  const Qwen35Config& c = *b.config;
  const sdk::Compute& cx = *b.cx;
  const Workspace& ws = b.ws;
  const int64_t KD = c.key_dim(), VD = c.value_dim();
  const int64_t nk = c.linear_num_key_heads, nv = c.linear_num_value_heads;
  const int64_t dk = c.linear_key_head_dim, dv = c.linear_value_head_dim;
  OXI_RETURN_IF_ERROR(cx.MatMul(h, w.in_proj_qkv, ws.qkv));
  OXI_RETURN_IF_ERROR(cx.MatMul(h, w.in_proj_z, ws.z));
  OXI_RETURN_IF_ERROR(cx.MatMul(h, w.in_proj_b, ws.b));
  OXI_RETURN_IF_ERROR(cx.MatMul(h, w.in_proj_a, ws.a));

  // Causal depthwise conv + SiLU over each sequence's history. The conv is
  // per channel, so the q, k and v channels (column views of in_proj_qkv)
  // convolve separately into packed tensors the head-wise ops can reshape.
  // A verification piece runs token by token (as plain decoding does) so
  // that the states after each token can be kept (Piece::steps).
  auto convolve = [&](const Piece& p, int64_t r0, int64_t n) -> sdk::Status {
    const ConvState st = b.sequences->Conv(p.seq, index);
    const sdk::Tensor x = ws.qkv.Rows(r0, n);
    OXI_RETURN_IF_ERROR(cx.Conv1dCausal(x.Cols(0, KD), w.conv_w->Rows(0, KD), st.q,
                                        ws.q.Rows(r0, n), OXI_UNARY_SILU));
    OXI_RETURN_IF_ERROR(cx.Conv1dCausal(x.Cols(KD, KD), w.conv_w->Rows(KD, KD), st.k,
                                        ws.k.Rows(r0, n), OXI_UNARY_SILU));
    return cx.Conv1dCausal(x.Cols(2 * KD, VD), w.conv_w->Rows(2 * KD, VD), st.v, ws.v.Rows(r0, n),
                           OXI_UNARY_SILU);
  };
  for (const Piece& p : b.pieces) {
    if (p.steps == nullptr) {
      OXI_RETURN_IF_ERROR(convolve(p, p.row0, p.n));
    } else {
      for (int64_t i = 0; i < p.n; ++i) {
        OXI_RETURN_IF_ERROR(convolve(p, p.row0 + i, 1));
        OXI_RETURN_IF_ERROR(b.sequences->SaveLayerState(p.seq, index, Sequences::Part::kConv,
                                                        p.steps, StepBlock(b, p, i)));
      }
    }
  }
  const int64_t rows = b.rows;
  const sdk::Tensor q_heads = ws.q.Reshape(rows * nk, dk);
  const sdk::Tensor k_heads = ws.k.Reshape(rows * nk, dk);
  OXI_RETURN_IF_ERROR(
      cx.L2Norm(q_heads, q_heads, kL2NormEps, 1.0f / std::sqrt(static_cast<float>(dk))));
  OXI_RETURN_IF_ERROR(cx.L2Norm(k_heads, k_heads, kL2NormEps, 1.0f));

  // beta = sigmoid(b); g = -exp(A_log) * softplus(a + dt_bias).
  OXI_RETURN_IF_ERROR(cx.Unary(OXI_UNARY_SIGMOID, ws.b, ws.b));
  OXI_RETURN_IF_ERROR(cx.Add(ws.a, w.dt_bias, ws.a));
  OXI_RETURN_IF_ERROR(cx.Unary(OXI_UNARY_SOFTPLUS, ws.a, ws.a));
  OXI_RETURN_IF_ERROR(cx.Mul(ws.a, w.neg_exp_a, ws.a));

  // The gated delta rule on each sequence's recurrent state: the recurrent
  // form for one token, the chunked one for more.
  auto delta = [&](const Piece& p, int64_t r0, int64_t n) -> sdk::Status {
    oxi_gated_delta_args g = sdk::Compute::GatedDeltaArgs();
    g.q = ws.q.Rows(r0, n);
    g.k = ws.k.Rows(r0, n);
    g.v = ws.v.Rows(r0, n);
    g.g = ws.a.Rows(r0, n);
    g.beta = ws.b.Rows(r0, n);
    g.state = b.sequences->Recurrent(p.seq, index);
    g.out = ws.core.Rows(r0, n);
    g.n_k_heads = static_cast<int32_t>(nk);
    g.n_v_heads = static_cast<int32_t>(nv);
    g.k_dim = static_cast<int32_t>(dk);
    g.v_dim = static_cast<int32_t>(dv);
    g.mode = OXI_GATED_DELTA_AUTO;
    g.chunk_size = kDeltaChunk;
    return cx.GatedDelta(g);
  };
  for (const Piece& p : b.pieces) {
    if (p.steps == nullptr) {
      OXI_RETURN_IF_ERROR(delta(p, p.row0, p.n));
      continue;
    }
    for (int64_t i = 0; i < p.n; ++i) {
      OXI_RETURN_IF_ERROR(delta(p, p.row0 + i, 1));
      OXI_RETURN_IF_ERROR(b.sequences->SaveLayerState(p.seq, index, Sequences::Part::kRecurrent,
                                                      p.steps, StepBlock(b, p, i)));
    }
  }

  // Gated RMSNorm per value head (plain weight), times SiLU(z); then out_proj.
  const sdk::Tensor core_heads = ws.core.Reshape(rows * nv, dv);
  OXI_RETURN_IF_ERROR(
      cx.RmsNorm(core_heads, w.norm, core_heads, static_cast<float>(c.rms_norm_eps), 0.0f));
  OXI_RETURN_IF_ERROR(cx.Glu(OXI_UNARY_SILU, ws.z, ws.core, ws.core));
  return cx.MatMul(ws.core, w.out_proj, out);
}

}  // namespace qwen35
}  // namespace oxinfer
