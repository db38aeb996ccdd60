// Which calls the CUDA kernels take. Decided on kinds, dtypes and shapes
// only (backend_abi.h); every unknown kind, and the _X8 layouts the CPU
// prefers, are declined so that the dispatcher runs them on the CPU.
#include "plugins/backends/cuda/cuda_ops.h"

namespace oxinfer {
namespace cuda {
namespace {

bool IsFloat(int32_t t) { return t == OXI_DTYPE_F32 || t == OXI_DTYPE_BF16 || t == OXI_DTYPE_F16; }
bool IsBlock(int32_t t) { return t == OXI_DTYPE_Q8_0 || t == OXI_DTYPE_Q4_0; }
bool IsWeight(int32_t t) { return IsFloat(t) || IsBlock(t); }
bool F32(const oxi_tensor& t) { return t.dtype == OXI_DTYPE_F32; }
bool F32OrAbsent(const oxi_tensor& t) { return t.buffer == nullptr || F32(t); }
bool I32OrAbsent(const oxi_tensor& t) { return t.buffer == nullptr || t.dtype == OXI_DTYPE_I32; }
template <typename A>
const A& Args(const oxi_op& op) {
  return reinterpret_cast<const A&>(op);
}
// The struct is as large as this ABI's (a shorter one is an older op version
// whose absent fields would read as zero: not taken here).
template <typename A>
bool Sized(const oxi_op& op) {
  return op.struct_size >= sizeof(A);
}

}  // namespace

bool SupportsOp(const oxi_op& op) {
  switch (op.kind) {
    case OXI_OP_MATMUL: {
      if (!Sized<oxi_matmul_args>(op)) return false;
      const auto& a = Args<oxi_matmul_args>(op);
      return F32(a.x) && F32(a.y) && F32OrAbsent(a.bias) && IsWeight(a.w.dtype) &&
             (!IsBlock(a.w.dtype) || a.w.cols % 32 == 0);
    }
    case OXI_OP_CONVERT: {
      if (!Sized<oxi_convert_args>(op)) return false;
      const auto& a = Args<oxi_convert_args>(op);
      return (IsFloat(a.src.dtype) && IsWeight(a.dst.dtype)) ||
             (IsBlock(a.src.dtype) && IsFloat(a.dst.dtype)) ||
             (a.src.dtype == a.dst.dtype && IsWeight(a.src.dtype));
    }
    case OXI_OP_GET_ROWS: {
      if (!Sized<oxi_get_rows_args>(op)) return false;
      const auto& a = Args<oxi_get_rows_args>(op);
      return IsWeight(a.table.dtype) && a.ids.dtype == OXI_DTYPE_I32 && F32(a.out);
    }
    case OXI_OP_SET_ROWS: {
      if (!Sized<oxi_set_rows_args>(op)) return false;
      const auto& a = Args<oxi_set_rows_args>(op);
      return F32(a.src) && a.ids.dtype == OXI_DTYPE_I32 && IsFloat(a.dst.dtype);
    }
    case OXI_OP_COPY: {
      if (!Sized<oxi_copy_args>(op)) return false;
      const auto& a = Args<oxi_copy_args>(op);
      return (IsFloat(a.src.dtype) && IsFloat(a.dst.dtype)) ||
             (a.src.dtype == a.dst.dtype && (IsBlock(a.src.dtype) || a.src.dtype == OXI_DTYPE_I32));
    }
    case OXI_OP_FILL: {
      if (!Sized<oxi_fill_args>(op)) return false;
      const auto& a = Args<oxi_fill_args>(op);
      return IsFloat(a.dst.dtype) || a.dst.dtype == OXI_DTYPE_I32;
    }
    case OXI_OP_CONCAT: {
      if (!Sized<oxi_concat_args>(op)) return false;
      const auto& a = Args<oxi_concat_args>(op);
      const int32_t t = a.a.dtype;
      return (IsFloat(t) || t == OXI_DTYPE_I32) && a.b.dtype == t && a.out.dtype == t;
    }
    case OXI_OP_UNARY:
      return Sized<oxi_unary_args>(op) && sdk::AllF32(op) && Args<oxi_unary_args>(op).fn >= 0 &&
             Args<oxi_unary_args>(op).fn <= OXI_UNARY_RELU;
    case OXI_OP_GLU:
      return Sized<oxi_glu_args>(op) && sdk::AllF32(op) && Args<oxi_glu_args>(op).act >= 0 &&
             Args<oxi_glu_args>(op).act <= OXI_UNARY_RELU;
    case OXI_OP_BINARY:
      return Sized<oxi_binary_args>(op) && sdk::AllF32(op) && Args<oxi_binary_args>(op).fn >= 1 &&
             Args<oxi_binary_args>(op).fn <= OXI_BINARY_DIV;
    case OXI_OP_SCALE:
      return Sized<oxi_scale_args>(op) && sdk::AllF32(op);
    case OXI_OP_SOFTMAX:
      return Sized<oxi_softmax_args>(op) && sdk::AllF32(op);
    case OXI_OP_RMS_NORM:
      return Sized<oxi_rms_norm_args>(op) && sdk::AllF32(op);
    case OXI_OP_L2_NORM:
      return Sized<oxi_l2_norm_args>(op) && sdk::AllF32(op);
    case OXI_OP_LAYER_NORM:
      return Sized<oxi_layer_norm_args>(op) && sdk::AllF32(op);
    case OXI_OP_GROUP_NORM: {
      if (!Sized<oxi_group_norm_args>(op) || !sdk::AllF32(op)) return false;
      const auto& a = Args<oxi_group_norm_args>(op);
      return a.groups > 0 && (a.act == OXI_UNARY_NONE || a.act == OXI_UNARY_SILU);
    }
    case OXI_OP_ROPE: {
      if (!Sized<oxi_rope_args>(op)) return false;
      const auto& a = Args<oxi_rope_args>(op);
      return F32(a.x) && F32(a.out) && F32(a.inv_freq) && a.pos.dtype == OXI_DTYPE_I32 &&
             a.rot_dim % 2 == 0 && a.rot_dim <= a.head_dim;
    }
    case OXI_OP_ATTENTION: {
      if (!Sized<oxi_attention_args>(op)) return false;
      const auto& a = Args<oxi_attention_args>(op);
      const bool kv =
          (F32(a.k) || a.k.dtype == OXI_DTYPE_F16) && (F32(a.v) || a.v.dtype == OXI_DTYPE_F16);
      return F32(a.q) && F32(a.out) && kv && F32OrAbsent(a.mask) && I32OrAbsent(a.q_pos) &&
             I32OrAbsent(a.kv_pos) && I32OrAbsent(a.q_span) && I32OrAbsent(a.kv_span) &&
             a.n_kv_heads > 0 && a.n_heads % a.n_kv_heads == 0;
    }
    case OXI_OP_CONV1D_CAUSAL: {
      if (!Sized<oxi_conv1d_causal_args>(op) || !sdk::AllF32(op)) return false;
      const auto& a = Args<oxi_conv1d_causal_args>(op);
      return a.act == OXI_UNARY_NONE || a.act == OXI_UNARY_SILU;
    }
    case OXI_OP_GATED_DELTA: {
      if (!Sized<oxi_gated_delta_args>(op) || !sdk::AllF32(op)) return false;
      const auto& a = Args<oxi_gated_delta_args>(op);
      return a.n_k_heads > 0 && a.n_v_heads % a.n_k_heads == 0 && a.k_dim > 0 && a.k_dim <= 4096;
    }
    case OXI_OP_CONV2D: {
      if (!Sized<oxi_conv2d_args>(op)) return false;
      const auto& a = Args<oxi_conv2d_args>(op);
      return F32(a.x) && F32(a.out) && F32OrAbsent(a.bias) && IsFloat(a.w.dtype) && a.stride > 0;
    }
    case OXI_OP_UPSAMPLE_NEAREST:
      return Sized<oxi_upsample_nearest_args>(op) && sdk::AllF32(op) &&
             Args<oxi_upsample_nearest_args>(op).factor > 0;
    default:
      return false;  // a kind this backend does not know: the CPU runs it
  }
}

}  // namespace cuda
}  // namespace oxinfer
