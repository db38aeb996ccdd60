// The operations of ABI 2 on the CUDA device: which calls the kernels take
// (SupportsOp; unknown kinds and other dtypes: no, so the dispatcher runs
// them on the CPU) and running one (RunOp), by family in cuda_ops_*.cc.
#ifndef OXINFER_PLUGINS_BACKENDS_CUDA_CUDA_OPS_H_
#define OXINFER_PLUGINS_BACKENDS_CUDA_CUDA_OPS_H_

#include "oxinfer/plugin.hpp"
#include "plugins/backends/cuda/cuda_device.h"

namespace oxinfer {
namespace cuda {

bool SupportsOp(const oxi_op& op);
// Runs an op SupportsOp accepted (checked again: operands inside their buffers).
sdk::Status RunOp(Device& dev, const oxi_op& op);

sdk::Status RunMatmul(Device& dev, const oxi_matmul_args& a);
sdk::Status RunElementwise(Device& dev, const oxi_op& op);  // unary ... convert
sdk::Status RunNorm(Device& dev, const oxi_op& op);         // norms, softmax, rope
sdk::Status RunAttention(Device& dev, const oxi_attention_args& a);
sdk::Status RunRecurrent(Device& dev, const oxi_op& op);  // conv1d, gated delta
sdk::Status RunImage(Device& dev, const oxi_op& op);      // conv2d, upsample

}  // namespace cuda
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_BACKENDS_CUDA_CUDA_OPS_H_
