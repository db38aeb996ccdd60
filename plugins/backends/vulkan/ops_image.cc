// The image ops of the diffusion family: conv2d (implicit GEMM), group norm
// (+SiLU), layer norm and nearest upsampling.
#include "plugins/backends/vulkan/ops.h"

namespace oxinfer {
namespace vulkan {
namespace {

bool FloatWeight(int32_t t) {
  return t == OXI_DTYPE_F32 || t == OXI_DTYPE_F16 || t == OXI_DTYPE_BF16;
}

bool OptionalRow(const oxi_tensor& t, int64_t n) {
  return t.buffer == nullptr || (IsF32(t) && t.rows == 1 && t.cols == n);
}

// ho / wo of a convolution, or -1.
int64_t OutSize(int64_t in, int64_t k, int64_t stride, int64_t pad) {
  if (stride <= 0 || pad < 0 || k <= 0 || in + 2 * pad < k) return -1;
  return (in + 2 * pad - k) / stride + 1;
}

}  // namespace

bool SupportsImage(const oxi_op& op) {
  switch (op.kind) {
    case OXI_OP_CONV2D: {
      const auto& a = reinterpret_cast<const oxi_conv2d_args&>(op);
      const int64_t batch = a.batch == 0 ? 1 : a.batch;
      const int64_t ho = OutSize(a.height, a.kh, a.stride, a.pad);
      const int64_t wo = OutSize(a.width, a.kw, a.stride, a.pad);
      return a.batch >= 0 && a.height > 0 && a.width > 0 && ho > 0 && wo > 0 && IsF32(a.x) &&
             IsF32(a.out) && a.w.buffer && FloatWeight(a.w.dtype) &&
             a.x.rows == batch * a.height * a.width &&
             a.w.cols == int64_t{a.kh} * a.kw * a.x.cols && a.out.rows == batch * ho * wo &&
             a.out.cols == a.w.rows && OptionalRow(a.bias, a.w.rows);
    }
    case OXI_OP_GROUP_NORM: {
      const auto& a = reinterpret_cast<const oxi_group_norm_args&>(op);
      const int64_t batch = a.batch == 0 ? 1 : a.batch;
      return IsF32(a.x) && IsF32(a.out) && SameShape(a.x, a.out) && a.groups > 0 &&
             a.x.cols % a.groups == 0 && a.batch >= 0 && a.x.rows % batch == 0 &&
             OptionalRow(a.gamma, a.x.cols) && OptionalRow(a.beta, a.x.cols) &&
             (a.act == OXI_UNARY_NONE || a.act == OXI_UNARY_SILU);
    }
    case OXI_OP_LAYER_NORM: {
      const auto& a = reinterpret_cast<const oxi_layer_norm_args&>(op);
      return IsF32(a.x) && IsF32(a.out) && SameShape(a.x, a.out) &&
             OptionalRow(a.gamma, a.x.cols) && OptionalRow(a.beta, a.x.cols);
    }
    case OXI_OP_UPSAMPLE_NEAREST: {
      const auto& a = reinterpret_cast<const oxi_upsample_nearest_args&>(op);
      const int64_t batch = a.batch == 0 ? 1 : a.batch;
      const int64_t f = a.factor;
      return a.batch >= 0 && a.height > 0 && a.width > 0 && f > 0 && a.x.buffer && a.out.buffer &&
             oxi_dtype_block_bytes(static_cast<oxi_dtype>(a.x.dtype)) == 4 &&
             a.x.dtype == a.out.dtype && a.x.rows == batch * a.height * a.width &&
             a.out.rows == batch * a.height * f * a.width * f && a.out.cols == a.x.cols;
    }
    case OXI_OP_AVG_POOL2D: {  // bad factors: the CPU's error
      const auto& a = reinterpret_cast<const oxi_avg_pool2d_args&>(op);
      const int64_t batch = a.batch == 0 ? 1 : a.batch;
      const int64_t f = a.factor;
      return a.batch >= 0 && a.height > 0 && a.width > 0 && f > 0 && a.height % f == 0 &&
             a.width % f == 0 && IsF32(a.x) && IsF32(a.out) &&
             a.x.rows == batch * a.height * a.width &&
             a.out.rows == batch * (a.height / f) * (a.width / f) && a.out.cols == a.x.cols;
    }
    default:
      return false;
  }
}

sdk::Status EncodeImage(Device* dev, const oxi_op& op) {
  switch (op.kind) {
    case OXI_OP_CONV2D: {
      const auto& a = reinterpret_cast<const oxi_conv2d_args&>(op);
      const int64_t ho = OutSize(a.height, a.kh, a.stride, a.pad);
      const int64_t wo = OutSize(a.width, a.kw, a.stride, a.pad);
      const uint64_t tiles_n = CeilDiv(a.w.rows, 32);
      PushConstants pc;
      for (int64_t v :
           {int64_t{a.height}, int64_t{a.width}, a.x.cols, a.w.rows, int64_t{a.kh}, int64_t{a.kw},
            int64_t{a.stride}, int64_t{a.pad}, ho, wo, a.out.rows, int64_t{a.w.dtype},
            int64_t{a.bias.buffer != nullptr}, static_cast<int64_t>(tiles_n)}) {
        pc.U(U32(v));
      }
      return dev->Dispatch(Shader::conv2d,
                           {dev->Bind(a.x), dev->Bind(a.w), dev->Bind(a.bias), dev->Bind(a.out)},
                           pc, CeilDiv(a.out.rows, 32) * tiles_n);
    }
    case OXI_OP_GROUP_NORM: {
      const auto& a = reinterpret_cast<const oxi_group_norm_args&>(op);
      const int64_t batch = a.batch == 0 ? 1 : a.batch;
      const int64_t pixels = a.x.rows / batch, jobs = batch * a.groups;
      OXI_ASSIGN_OR_RETURN(VkBuf * scratch, dev->Scratch(1, static_cast<uint64_t>(jobs) * 8));
      const Binding stats = dev->BindRange(scratch, 0, static_cast<uint64_t>(jobs) * 8);
      PushConstants s;
      s.U(U32(pixels));
      s.U(U32(a.x.cols));
      s.U(U32(a.groups));
      s.U(U32(jobs));
      s.F(a.eps);
      OXI_RETURN_IF_ERROR(
          dev->Dispatch(Shader::group_norm_stats, {dev->Bind(a.x), stats}, s, jobs));
      PushConstants p;
      p.U(U32(a.x.rows));
      p.U(U32(a.x.cols));
      p.U(U32(pixels));
      p.U(U32(a.groups));
      p.U(a.gamma.buffer != nullptr);
      p.U(a.beta.buffer != nullptr);
      p.U(U32(a.act));
      return dev->Dispatch(
          Shader::group_norm_apply,
          {dev->Bind(a.x), dev->Bind(a.gamma), dev->Bind(a.beta), dev->Bind(a.out), stats}, p,
          CeilDiv(a.x.rows * a.x.cols, 256));
    }
    case OXI_OP_LAYER_NORM: {
      const auto& a = reinterpret_cast<const oxi_layer_norm_args&>(op);
      PushConstants pc;
      pc.U(U32(a.x.rows));
      pc.U(U32(a.x.cols));
      pc.U(a.gamma.buffer != nullptr);
      pc.U(a.beta.buffer != nullptr);
      pc.F(a.eps);
      return dev->Dispatch(
          Shader::layer_norm,
          {dev->Bind(a.x), dev->Bind(a.gamma), dev->Bind(a.beta), dev->Bind(a.out)}, pc,
          static_cast<uint64_t>(a.x.rows));
    }
    case OXI_OP_UPSAMPLE_NEAREST: {
      const auto& a = reinterpret_cast<const oxi_upsample_nearest_args&>(op);
      PushConstants pc;
      pc.U(U32(a.batch == 0 ? 1 : a.batch));
      pc.U(U32(a.height));
      pc.U(U32(a.width));
      pc.U(U32(a.factor));
      pc.U(U32(a.x.cols));
      return dev->Dispatch(Shader::upsample, {dev->Bind(a.x), dev->Bind(a.out)}, pc,
                           CeilDiv(a.out.rows * a.out.cols, 256));
    }
    case OXI_OP_AVG_POOL2D: {
      const auto& a = reinterpret_cast<const oxi_avg_pool2d_args&>(op);
      PushConstants pc;
      pc.U(U32(a.batch == 0 ? 1 : a.batch));
      pc.U(U32(a.height));
      pc.U(U32(a.width));
      pc.U(U32(a.factor));
      pc.U(U32(a.x.cols));
      pc.F(1.0f / static_cast<float>(int64_t{a.factor} * a.factor));
      return dev->Dispatch(Shader::avg_pool, {dev->Bind(a.x), dev->Bind(a.out)}, pc,
                           CeilDiv(a.out.rows * a.out.cols, 256));
    }
    default:
      return sdk::UnimplementedError("no Vulkan shader");
  }
}

}  // namespace vulkan
}  // namespace oxinfer
