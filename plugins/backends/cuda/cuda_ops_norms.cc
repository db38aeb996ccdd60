// Row norms, softmax, group norm and RoPE (kernels/norms.cu).
#include "plugins/backends/cuda/cuda_ops.h"

namespace oxinfer {
namespace cuda {
namespace {

template <typename A>
const A& Args(const oxi_op& op) {
  return reinterpret_cast<const A&>(op);
}

// One block per row: threads up to the row's length, in warps.
uint32_t RowThreads(int64_t cols) {
  int64_t t = 32;
  while (t < cols && t < 1024) t *= 2;
  return static_cast<uint32_t>(t);
}

sdk::Status RowNorm(Device& dev, NormParams p) {
  if (p.x.rows != p.out.rows || p.x.cols != p.out.cols) {
    return sdk::InvalidArgumentError("norm: out differs from x in shape");
  }
  if (p.x.rows > 0x7fffffff) return sdk::InvalidArgumentError("norm: too many rows");
  return dev.Launch("ox_row_norm", static_cast<uint32_t>(p.x.rows), 1, RowThreads(p.x.cols), 0,
                    {&p});
}

}  // namespace

sdk::Status RunNorm(Device& dev, const oxi_op& op) {
  const Mat none{};
  switch (op.kind) {
    case OXI_OP_SOFTMAX: {
      const auto& a = Args<oxi_softmax_args>(op);
      return RowNorm(dev, NormParams{ToMat(a.x), none, none, ToMat(a.out), op.kind, 0.0f, a.scale});
    }
    case OXI_OP_RMS_NORM: {
      const auto& a = Args<oxi_rms_norm_args>(op);
      return RowNorm(dev, NormParams{ToMat(a.x), ToMat(a.weight), none, ToMat(a.out), op.kind,
                                     a.eps, a.weight_offset});
    }
    case OXI_OP_L2_NORM: {
      const auto& a = Args<oxi_l2_norm_args>(op);
      return RowNorm(dev,
                     NormParams{ToMat(a.x), none, none, ToMat(a.out), op.kind, a.eps, a.scale});
    }
    case OXI_OP_LAYER_NORM: {
      const auto& a = Args<oxi_layer_norm_args>(op);
      return RowNorm(dev, NormParams{ToMat(a.x), ToMat(a.gamma), ToMat(a.beta), ToMat(a.out),
                                     op.kind, a.eps, 0.0f});
    }
    case OXI_OP_GROUP_NORM: {
      const auto& a = Args<oxi_group_norm_args>(op);
      const int32_t batch = a.batch > 0 ? a.batch : 1;
      if (a.x.cols % a.groups != 0 || a.x.rows % batch != 0) {
        return sdk::InvalidArgumentError("group_norm: groups must divide C and batch the rows");
      }
      GroupNormParams p{ToMat(a.x),   ToMat(a.gamma), ToMat(a.beta),
                        ToMat(a.out), a.groups,       batch,
                        a.act,        a.eps,          0};
      OXI_ASSIGN_OR_RETURN(p.stats,
                           dev.ScratchMemory(Scratch::kGroupStats, uint64_t(batch) * a.groups * 8));
      OXI_RETURN_IF_ERROR(
          dev.Launch("ox_group_norm_stats", uint32_t(batch) * a.groups, 1, 256, 0, {&p}));
      return dev.LaunchItems("ox_group_norm_apply", a.x.rows * a.x.cols, {&p});
    }
    case OXI_OP_ROPE: {
      const auto& a = Args<oxi_rope_args>(op);
      if (int64_t(a.n_heads) * a.head_dim != a.x.cols || a.pos.cols != a.x.rows ||
          a.inv_freq.cols < a.rot_dim / 2) {
        return sdk::InvalidArgumentError("rope: x, pos or inv_freq do not fit the heads");
      }
      RopeParams p{ToMat(a.x), ToMat(a.pos), ToMat(a.inv_freq), ToMat(a.out),
                   a.n_heads,  a.head_dim,   a.rot_dim};
      return dev.LaunchItems("ox_rope", a.x.rows * a.n_heads * (a.head_dim - a.rot_dim / 2), {&p});
    }
    default:
      return sdk::UnimplementedError(sdk::StrCat("cuda: no kernel for ", oxi_op_name(op.kind)));
  }
}

}  // namespace cuda
}  // namespace oxinfer
