#include "plugins/backends/cuda/cuda_ops.h"

#include <string>

namespace oxinfer {
namespace cuda {
namespace {

// Every present operand lies inside its buffer (the kernels do not check).
sdk::Status CheckOperands(const oxi_op& op) {
  for (int i = 0; i < op.n_tensors; ++i) {
    const oxi_tensor* t = oxi_op_tensor(&op, i);
    if (t->buffer == nullptr) continue;
    const int64_t extent = oxi_tensor_extent(t);
    const DeviceBuffer* b = AsDevice(t->buffer);
    if (extent < 0 || t->offset > b->size || static_cast<uint64_t>(extent) > b->size - t->offset) {
      return sdk::InvalidArgumentError(
          sdk::StrCat(oxi_op_name(op.kind), ": operand ", i, " (", t->rows, " x ", t->cols, " ",
                      oxi_dtype_name(static_cast<oxi_dtype>(t->dtype)), " at offset ", t->offset,
                      ") outside its buffer of ", b->size, " bytes"));
    }
  }
  return sdk::OkStatus();
}

}  // namespace

sdk::Status RunOp(Device& dev, const oxi_op& op) {
  if (!SupportsOp(op)) {
    return sdk::UnimplementedError(
        sdk::StrCat("cuda: ", oxi_op_name(op.kind), " with these dtypes is not supported"));
  }
  OXI_RETURN_IF_ERROR(CheckOperands(op));
  switch (op.kind) {
    case OXI_OP_MATMUL:
      return RunMatmul(dev, reinterpret_cast<const oxi_matmul_args&>(op));
    case OXI_OP_ATTENTION:
      return RunAttention(dev, reinterpret_cast<const oxi_attention_args&>(op));
    case OXI_OP_SOFTMAX:
    case OXI_OP_RMS_NORM:
    case OXI_OP_L2_NORM:
    case OXI_OP_LAYER_NORM:
    case OXI_OP_GROUP_NORM:
    case OXI_OP_ROPE:
      return RunNorm(dev, op);
    case OXI_OP_CONV1D_CAUSAL:
    case OXI_OP_GATED_DELTA:
      return RunRecurrent(dev, op);
    case OXI_OP_CONV2D:
    case OXI_OP_UPSAMPLE_NEAREST:
      return RunImage(dev, op);
    default:
      return RunElementwise(dev, op);
  }
}

}  // namespace cuda
}  // namespace oxinfer
