// Attention over the KV cache (kernels/attention.cu): scores, softmax, values.
#include "plugins/backends/cuda/cuda_ops.h"

namespace oxinfer {
namespace cuda {

sdk::Status RunAttention(Device& dev, const oxi_attention_args& a) {
  const int32_t batch = a.batch > 0 ? a.batch : 1;
  if (a.q.rows % batch != 0 || a.k.rows % batch != 0 || a.v.rows != a.k.rows ||
      a.out.rows != a.q.rows || int64_t(a.n_heads) * a.head_dim != a.q.cols ||
      int64_t(a.n_kv_heads) * a.head_dim != a.k.cols ||
      int64_t(a.n_kv_heads) * a.v_head_dim != a.v.cols ||
      int64_t(a.n_heads) * a.v_head_dim != a.out.cols) {
    return sdk::InvalidArgumentError("attention: q, k, v and out do not fit the heads and batch");
  }
  AttentionParams p{ToMat(a.q),      ToMat(a.k),    ToMat(a.v),       ToMat(a.q_pos),
                    ToMat(a.kv_pos), ToMat(a.mask), ToMat(a.q_span),  ToMat(a.kv_span),
                    ToMat(a.out),    a.n_heads,     a.n_kv_heads,     a.head_dim,
                    a.v_head_dim,    a.scale,       a.softcap,        a.causal,
                    a.window,        batch,         a.q.rows / batch, a.k.rows / batch};
  const int64_t rows = int64_t(batch) * p.n_q * a.n_heads;
  if (rows > 0x7fffffff) return sdk::InvalidArgumentError("attention: too many query rows");
  if (rows == 0) return sdk::OkStatus();
  if (p.n_kv == 0) {  // no slot at all: zeros
    FillParams zero{ToMat(a.out), 0.0f};
    return dev.LaunchItems("ox_fill", a.out.rows * a.out.cols, {&zero});
  }
  OXI_ASSIGN_OR_RETURN(CUdeviceptr scores,
                       dev.ScratchMemory(Scratch::kScores, uint64_t(rows) * p.n_kv * 4));
  void* s = &scores;
  const int64_t items = rows * p.n_kv;
  const uint32_t grid = static_cast<uint32_t>(std::min<int64_t>((items + 7) / 8, 1 << 20));
  OXI_RETURN_IF_ERROR(dev.Launch("ox_attn_scores", grid, 1, 256, 0, {&p, s}));
  OXI_RETURN_IF_ERROR(dev.Launch("ox_attn_softmax", uint32_t(rows), 1, 256, 0, {&p, s}));
  const uint32_t threads = a.v_head_dim >= 256 ? 256 : (a.v_head_dim + 31) / 32 * 32;
  return dev.Launch("ox_attn_values", uint32_t(rows), 1, threads, 0, {&p, s});
}

}  // namespace cuda
}  // namespace oxinfer
