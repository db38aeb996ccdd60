// The ops of a transformer layer beyond matmul and element-wise ones:
// softmax, l2_norm, rope, concat, attention over a KV cache, the causal
// conv1d and the gated delta rule (Qwen 3.5's DeltaNet).
#include "plugins/backends/vulkan/ops.h"

namespace oxinfer {
namespace vulkan {
namespace {

constexpr int32_t kMaxHeadDim = 512;  // attention.comp: qs[512], 8 value dims per thread
constexpr int32_t kMaxConvTaps = 16;  // conv1d.comp: win[16]

bool I32Vector(const oxi_tensor& t, int64_t n) {
  return t.buffer == nullptr || (t.dtype == OXI_DTYPE_I32 && t.rows == 1 && t.cols == n);
}

bool KvType(int32_t t) {
  return t == OXI_DTYPE_F32 || t == OXI_DTYPE_F16 || t == OXI_DTYPE_BF16;
}

bool SupportsAttention(const oxi_attention_args& a) {
  if (a.op.struct_size < sizeof(oxi_attention_args)) return false;
  if (a.n_heads <= 0 || a.n_kv_heads <= 0 || a.n_heads % a.n_kv_heads != 0) return false;
  if (a.head_dim <= 0 || a.v_head_dim <= 0 || a.head_dim > kMaxHeadDim ||
      a.v_head_dim > kMaxHeadDim || a.batch < 0) {
    return false;
  }
  const int64_t batch = a.batch == 0 ? 1 : a.batch;
  if (!IsF32(a.q) || !IsF32(a.out) || !a.k.buffer || !a.v.buffer || !KvType(a.k.dtype) ||
      a.v.dtype != a.k.dtype) {
    return false;
  }
  if (a.q.rows % batch != 0 || a.k.rows % batch != 0 || a.v.rows != a.k.rows) return false;
  const int64_t n_q = a.q.rows / batch, n_kv = a.k.rows / batch;
  if (a.q.cols != int64_t{a.n_heads} * a.head_dim || a.k.cols != int64_t{a.n_kv_heads} * a.head_dim ||
      a.v.cols != int64_t{a.n_kv_heads} * a.v_head_dim || a.out.rows != a.q.rows ||
      a.out.cols != int64_t{a.n_heads} * a.v_head_dim) {
    return false;
  }
  if (!I32Vector(a.q_pos, n_q) || !I32Vector(a.kv_pos, n_kv) || !I32Vector(a.q_span, n_q) ||
      !I32Vector(a.kv_span, n_kv)) {
    return false;
  }
  if ((a.q_span.buffer == nullptr) != (a.kv_span.buffer == nullptr)) return false;
  if (a.mask.buffer != nullptr && (!IsF32(a.mask) || a.mask.rows != n_q || a.mask.cols != n_kv)) {
    return false;
  }
  return true;
}

sdk::Status EncodeAttention(Device* dev, const oxi_attention_args& a) {
  const int64_t batch = a.batch == 0 ? 1 : a.batch;
  const int64_t n_q = a.q.rows / batch, n_kv = a.k.rows / batch;
  uint32_t flags = a.causal ? 1u : 0u;
  if (a.q_pos.buffer) flags |= 2u;
  if (a.kv_pos.buffer) flags |= 4u;
  if (a.mask.buffer) flags |= 8u;
  if (a.q_span.buffer) flags |= 16u;
  PushConstants pc;
  pc.U(U32(n_q));
  pc.U(U32(n_kv));
  pc.U(U32(a.n_heads));
  pc.U(U32(a.n_kv_heads));
  pc.U(U32(a.head_dim));
  pc.U(U32(a.v_head_dim));
  pc.U(U32(a.k.dtype));
  pc.U(flags);
  pc.F(a.scale);
  pc.F(a.softcap);
  pc.I(a.window);
  return dev->Dispatch(Shader::attention,
                       {dev->Bind(a.q), dev->Bind(a.k), dev->Bind(a.v), dev->Bind(a.q_pos),
                        dev->Bind(a.kv_pos), dev->Bind(a.mask), dev->Bind(a.q_span),
                        dev->Bind(a.kv_span), dev->Bind(a.out)},
                       pc, static_cast<uint64_t>(a.q.rows) * a.n_heads);
}

bool SupportsGatedDelta(const oxi_gated_delta_args& a) {
  if (a.op.struct_size < sizeof(oxi_gated_delta_args)) return false;
  const int64_t n = a.q.rows;
  const int64_t nk = a.n_k_heads, nv = a.n_v_heads, dk = a.k_dim, dv = a.v_dim;
  if (nk <= 0 || nv <= 0 || dk <= 0 || dv <= 0 || nv % nk != 0) return false;
  for (const oxi_tensor* t : {&a.q, &a.k, &a.v, &a.g, &a.beta, &a.state, &a.out}) {
    if (!IsF32(*t)) return false;
  }
  return a.q.cols == nk * dk && a.k.rows == n && a.k.cols == nk * dk && a.v.rows == n &&
         a.v.cols == nv * dv && a.g.rows == n && a.g.cols == nv && a.beta.rows == n &&
         a.beta.cols == nv && a.state.rows == nv && a.state.cols == dk * dv && a.out.rows == n &&
         a.out.cols == nv * dv;
}

}  // namespace

bool SupportsSequence(const oxi_op& op) {
  switch (op.kind) {
    case OXI_OP_SOFTMAX: {
      const auto& a = reinterpret_cast<const oxi_softmax_args&>(op);
      return IsF32(a.x) && IsF32(a.out) && SameShape(a.x, a.out);
    }
    case OXI_OP_L2_NORM: {
      const auto& a = reinterpret_cast<const oxi_l2_norm_args&>(op);
      return IsF32(a.x) && IsF32(a.out) && SameShape(a.x, a.out);
    }
    case OXI_OP_ROPE: {
      const auto& a = reinterpret_cast<const oxi_rope_args&>(op);
      return IsF32(a.x) && IsF32(a.out) && SameShape(a.x, a.out) && a.n_heads > 0 &&
             a.head_dim > 0 && a.rot_dim >= 0 && a.rot_dim % 2 == 0 && a.rot_dim <= a.head_dim &&
             a.x.cols == int64_t{a.n_heads} * a.head_dim && I32Vector(a.pos, a.x.rows) &&
             a.pos.buffer != nullptr &&
             (a.rot_dim == 0 || (IsF32(a.inv_freq) && a.inv_freq.rows == 1 &&
                                 a.inv_freq.cols == a.rot_dim / 2));
    }
    case OXI_OP_CONCAT: {
      const auto& a = reinterpret_cast<const oxi_concat_args&>(op);
      const auto four = [](const oxi_tensor& t) {
        return t.buffer != nullptr && (t.dtype == OXI_DTYPE_F32 || t.dtype == OXI_DTYPE_I32);
      };
      return four(a.a) && four(a.b) && four(a.out) && a.a.dtype == a.b.dtype &&
             a.a.dtype == a.out.dtype && a.a.rows == a.out.rows && a.b.rows == a.out.rows &&
             a.a.cols + a.b.cols == a.out.cols;
    }
    case OXI_OP_ATTENTION:
      return SupportsAttention(reinterpret_cast<const oxi_attention_args&>(op));
    case OXI_OP_CONV1D_CAUSAL: {
      const auto& a = reinterpret_cast<const oxi_conv1d_causal_args&>(op);
      const int64_t k = a.w.cols;
      return IsF32(a.x) && IsF32(a.w) && IsF32(a.out) && SameShape(a.x, a.out) && k >= 1 &&
             k <= kMaxConvTaps && a.w.rows == a.x.cols &&
             (k == 1 || (IsF32(a.state) && a.state.rows == k - 1 && a.state.cols == a.x.cols)) &&
             (a.act == OXI_UNARY_NONE || a.act == OXI_UNARY_SILU);
    }
    case OXI_OP_GATED_DELTA:
      return SupportsGatedDelta(reinterpret_cast<const oxi_gated_delta_args&>(op));
    default:
      return false;
  }
}

sdk::Status EncodeSequence(Device* dev, const oxi_op& op) {
  switch (op.kind) {
    case OXI_OP_SOFTMAX:
    case OXI_OP_L2_NORM: {
      const bool l2 = op.kind == OXI_OP_L2_NORM;
      const auto& s = reinterpret_cast<const oxi_softmax_args&>(op);
      const auto& n = reinterpret_cast<const oxi_l2_norm_args&>(op);
      const oxi_tensor& x = l2 ? n.x : s.x;
      const oxi_tensor& out = l2 ? n.out : s.out;
      PushConstants pc;
      pc.U(U32(x.rows));
      pc.U(U32(x.cols));
      pc.U(l2 ? 1 : 0);
      pc.F(l2 ? n.scale : s.scale);
      pc.F(l2 ? n.eps : 0.0f);
      return dev->Dispatch(Shader::softmax, {dev->Bind(x), dev->Bind(out)}, pc,
                           static_cast<uint64_t>(x.rows));
    }
    case OXI_OP_ROPE: {
      const auto& a = reinterpret_cast<const oxi_rope_args&>(op);
      PushConstants pc;
      pc.U(U32(a.x.rows));
      pc.U(U32(a.n_heads));
      pc.U(U32(a.head_dim));
      pc.U(U32(a.rot_dim));
      const uint64_t per_head = a.head_dim - a.rot_dim / 2;
      return dev->Dispatch(Shader::rope,
                           {dev->Bind(a.x), dev->Bind(a.pos), dev->Bind(a.inv_freq), dev->Bind(a.out)},
                           pc, CeilDiv(a.x.rows * a.n_heads * per_head, 256));
    }
    case OXI_OP_CONCAT: {
      const auto& a = reinterpret_cast<const oxi_concat_args&>(op);
      PushConstants pc;
      pc.U(U32(a.out.rows));
      pc.U(U32(a.a.cols));
      pc.U(U32(a.b.cols));
      return dev->Dispatch(Shader::concat, {dev->Bind(a.a), dev->Bind(a.b), dev->Bind(a.out)}, pc,
                           CeilDiv(a.out.rows * a.out.cols, 256));
    }
    case OXI_OP_ATTENTION:
      return EncodeAttention(dev, reinterpret_cast<const oxi_attention_args&>(op));
    case OXI_OP_CONV1D_CAUSAL: {
      const auto& a = reinterpret_cast<const oxi_conv1d_causal_args&>(op);
      PushConstants pc;
      pc.U(U32(a.x.rows));
      pc.U(U32(a.x.cols));
      pc.U(U32(a.w.cols));
      pc.U(U32(a.act));
      return dev->Dispatch(Shader::conv1d,
                           {dev->Bind(a.x), dev->Bind(a.w), dev->Bind(a.state), dev->Bind(a.out)},
                           pc, CeilDiv(a.x.cols, 64));
    }
    case OXI_OP_GATED_DELTA: {
      const auto& a = reinterpret_cast<const oxi_gated_delta_args&>(op);
      PushConstants pc;
      pc.U(U32(a.q.rows));
      pc.U(U32(a.n_k_heads));
      pc.U(U32(a.n_v_heads));
      pc.U(U32(a.k_dim));
      pc.U(U32(a.v_dim));
      return dev->Dispatch(Shader::gated_delta,
                           {dev->Bind(a.q), dev->Bind(a.k), dev->Bind(a.v), dev->Bind(a.g),
                            dev->Bind(a.beta), dev->Bind(a.state), dev->Bind(a.out)},
                           pc, CeilDiv(int64_t{a.n_v_heads} * a.v_dim, 64));
    }
    default:
      return sdk::UnimplementedError("no Vulkan shader");
  }
}

}  // namespace vulkan
}  // namespace oxinfer
