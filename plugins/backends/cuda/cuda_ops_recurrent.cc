// The DeltaNet ops (kernels/recurrent.cu): causal conv1d with its state and
// the gated delta rule; states stay in device buffers between calls.
#include "plugins/backends/cuda/cuda_ops.h"

namespace oxinfer {
namespace cuda {

sdk::Status RunRecurrent(Device& dev, const oxi_op& op) {
  if (op.kind == OXI_OP_CONV1D_CAUSAL) {
    const auto& a = reinterpret_cast<const oxi_conv1d_causal_args&>(op);
    const int64_t C = a.x.cols, K = a.w.cols;
    if (a.w.rows != C || a.state.cols != C || a.state.rows != K - 1 || a.out.rows != a.x.rows ||
        a.out.cols != C || K < 1) {
      return sdk::InvalidArgumentError("conv1d_causal: w [C][K], state [K-1][C], out [n][C]");
    }
    Conv1dParams p{ToMat(a.x), ToMat(a.w), ToMat(a.state), ToMat(a.out), a.act, 0};
    OXI_ASSIGN_OR_RETURN(p.scratch, dev.ScratchMemory(Scratch::kConv1d, uint64_t(K) * C * 4));
    OXI_RETURN_IF_ERROR(dev.LaunchItems("ox_conv1d_causal", std::max(a.x.rows, K - 1) * C, {&p}));
    return dev.LaunchItems("ox_conv1d_state", (K - 1) * C, {&p});
  }
  const auto& a = reinterpret_cast<const oxi_gated_delta_args&>(op);
  const int64_t n = a.q.rows;
  if (a.k.rows != n || a.v.rows != n || a.g.rows != n || a.beta.rows != n || a.out.rows != n ||
      a.q.cols != int64_t(a.n_k_heads) * a.k_dim || a.k.cols != a.q.cols ||
      a.v.cols != int64_t(a.n_v_heads) * a.v_dim || a.g.cols != a.n_v_heads ||
      a.beta.cols != a.n_v_heads || a.state.rows != a.n_v_heads ||
      a.state.cols != int64_t(a.k_dim) * a.v_dim || a.out.cols != a.v.cols) {
    return sdk::InvalidArgumentError("gated_delta: operands do not fit the heads and dims");
  }
  GatedDeltaParams p{ToMat(a.q),    ToMat(a.k),     ToMat(a.v),   ToMat(a.g),
                     ToMat(a.beta), ToMat(a.state), ToMat(a.out), a.n_k_heads,
                     a.n_v_heads,   a.k_dim,        a.v_dim};
  const uint32_t threads = a.v_dim >= 256 ? 256 : (a.v_dim + 31) / 32 * 32;
  return dev.Launch("ox_gated_delta", uint32_t(a.n_v_heads), 1, threads, uint32_t(2 * a.k_dim * 4),
                    {&p});
}

}  // namespace cuda
}  // namespace oxinfer
