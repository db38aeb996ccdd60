#include "plugins/models/qwen35/qwen35_layers.h"

namespace oxinfer {
namespace qwen35 {

sdk::StatusOr<Workspace> AllocWorkspace(sdk::Scratch* scratch, const Qwen35Config& c,
                                        int64_t rows) {
  const int64_t H = c.hidden_size, KD = c.key_dim(), VD = c.value_dim();
  const int64_t nv = c.linear_num_value_heads;
  const int64_t q_cols = c.num_attention_heads * c.head_dim;
  const int64_t kv_cols = c.num_key_value_heads * c.head_dim;
  Workspace w;
  OXI_ASSIGN_OR_RETURN(w.h, scratch->F32(rows, H));
  OXI_ASSIGN_OR_RETURN(w.o, scratch->F32(rows, H));
  OXI_ASSIGN_OR_RETURN(w.qkv, scratch->F32(rows, c.conv_dim()));
  OXI_ASSIGN_OR_RETURN(w.q, scratch->F32(rows, KD));
  OXI_ASSIGN_OR_RETURN(w.k, scratch->F32(rows, KD));
  OXI_ASSIGN_OR_RETURN(w.v, scratch->F32(rows, VD));
  OXI_ASSIGN_OR_RETURN(w.z, scratch->F32(rows, VD));
  OXI_ASSIGN_OR_RETURN(w.b, scratch->F32(rows, nv));
  OXI_ASSIGN_OR_RETURN(w.a, scratch->F32(rows, nv));
  OXI_ASSIGN_OR_RETURN(w.core, scratch->F32(rows, VD));
  OXI_ASSIGN_OR_RETURN(w.qg, scratch->F32(rows, 2 * q_cols));
  OXI_ASSIGN_OR_RETURN(w.aq, scratch->F32(rows, q_cols));
  OXI_ASSIGN_OR_RETURN(w.ak, scratch->F32(rows, kv_cols));
  OXI_ASSIGN_OR_RETURN(w.av, scratch->F32(rows, kv_cols));
  OXI_ASSIGN_OR_RETURN(w.att, scratch->F32(rows, q_cols));
  OXI_ASSIGN_OR_RETURN(w.gate, scratch->F32(rows, c.intermediate_size));
  OXI_ASSIGN_OR_RETURN(w.up, scratch->F32(rows, c.intermediate_size));
  return w;
}

sdk::Status Mlp(const Block& b, const LayerWeights& w, const sdk::Tensor& h,
                const sdk::Tensor& out) {
  const sdk::Compute& cx = *b.cx;
  const Workspace& ws = b.ws;
  OXI_RETURN_IF_ERROR(cx.MatMul(h, w.gate_proj, ws.gate));
  OXI_RETURN_IF_ERROR(cx.MatMul(h, w.up_proj, ws.up));
  OXI_RETURN_IF_ERROR(cx.Glu(OXI_UNARY_SILU, ws.gate, ws.up, ws.gate));
  return cx.MatMul(ws.gate, w.down_proj, out);
}

}  // namespace qwen35
}  // namespace oxinfer
