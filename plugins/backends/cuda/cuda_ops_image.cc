// Conv2d (implicit GEMM) and nearest upsampling (kernels/image.cu).
#include "plugins/backends/cuda/cuda_ops.h"

namespace oxinfer {
namespace cuda {

sdk::Status RunImage(Device& dev, const oxi_op& op) {
  if (op.kind == OXI_OP_UPSAMPLE_NEAREST) {
    const auto& a = reinterpret_cast<const oxi_upsample_nearest_args&>(op);
    const int64_t batch = a.batch > 0 ? a.batch : 1;
    if (a.x.rows != batch * a.height * a.width || a.out.cols != a.x.cols ||
        a.out.rows != a.x.rows * a.factor * a.factor) {
      return sdk::InvalidArgumentError("upsample_nearest: x or out do not fit the images");
    }
    UpsampleParams p{ToMat(a.x), ToMat(a.out), int32_t(batch), a.height, a.width, a.factor};
    return dev.LaunchItems("ox_upsample_nearest", a.out.rows * a.out.cols, {&p});
  }
  const auto& a = reinterpret_cast<const oxi_conv2d_args&>(op);
  const int32_t batch = a.batch > 0 ? a.batch : 1;
  const int64_t cin = a.x.cols, cout = a.w.rows;
  const int32_t ho = (a.height + 2 * a.pad - a.kh) / a.stride + 1;
  const int32_t wo = (a.width + 2 * a.pad - a.kw) / a.stride + 1;
  if (a.x.rows != int64_t(batch) * a.height * a.width || a.w.cols != int64_t(a.kh) * a.kw * cin ||
      a.out.rows != int64_t(batch) * ho * wo || a.out.cols != cout || ho <= 0 || wo <= 0) {
    return sdk::InvalidArgumentError("conv2d: x, w or out do not fit the images and kernel");
  }
  Conv2dParams p{ToMat(a.x),   ToMat(a.w),   ToMat(a.bias),
                 ToMat(a.out), batch,        a.height,
                 a.width,      int32_t(cin), int32_t(cout),
                 a.kh,         a.kw,         a.stride,
                 a.pad,        ho,           wo};
  return dev.Launch("ox_conv2d", uint32_t((cout + 63) / 64), uint32_t((a.out.rows + 63) / 64), 256,
                    0, {&p});
}

}  // namespace cuda
}  // namespace oxinfer
