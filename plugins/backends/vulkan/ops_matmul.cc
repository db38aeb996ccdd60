// matmul: a GEMV per output for few rows (decode), a 32 x 32 tiled GEMM for
// more (prefill); block weights first quantise the activations to Q8_0 into
// scratch, as the CPU does.
#include "plugins/backends/vulkan/ops.h"

namespace oxinfer {
namespace vulkan {
namespace {

constexpr int64_t kVecMaxRows = 8;  // the CPU's decode bound too

bool IsBlock(int32_t t) { return t == OXI_DTYPE_Q8_0 || t == OXI_DTYPE_Q4_0; }

}  // namespace

bool SupportsMatmul(const oxi_op& op) {
  const auto& a = reinterpret_cast<const oxi_matmul_args&>(op);
  if (op.struct_size < sizeof(oxi_matmul_args)) return false;
  if (!IsF32(a.x) || !IsF32(a.y) || a.w.buffer == nullptr || !IsFloatOrBlock(a.w.dtype)) {
    return false;
  }
  if (a.bias.buffer != nullptr && (!IsF32(a.bias) || a.bias.cols != a.w.rows)) return false;
  if (a.x.cols != a.w.cols || a.y.rows != a.x.rows || a.y.cols != a.w.rows) return false;
  if (IsBlock(a.w.dtype) && a.w.cols % OXI_QK != 0) return false;
  return true;
}

sdk::Status EncodeMatmul(Device* dev, const oxi_op& op) {
  const auto& a = reinterpret_cast<const oxi_matmul_args&>(op);
  const int64_t m = a.x.rows, k = a.x.cols, n = a.w.rows;
  const bool block = IsBlock(a.w.dtype);
  Binding quant = dev->Bind(oxi_tensor{});  // the dummy unless block weights
  if (block) {
    const uint64_t nb = static_cast<uint64_t>(k / OXI_QK);
    const uint64_t bytes = static_cast<uint64_t>(m) * nb * 36;
    OXI_ASSIGN_OR_RETURN(VkBuf * scratch, dev->Scratch(0, bytes));
    quant = dev->BindRange(scratch, 0, bytes);
    PushConstants pc;
    pc.U(U32(m));
    pc.U(U32(nb));
    OXI_RETURN_IF_ERROR(dev->Dispatch(Shader::quantize_q8, {dev->Bind(a.x), quant}, pc,
                                      CeilDiv(m * nb, 64)));
  }
  const std::vector<Binding> operands = {dev->Bind(a.x), dev->Bind(a.w), dev->Bind(a.bias),
                                         dev->Bind(a.y), quant};
  PushConstants pc;
  pc.U(U32(m));
  pc.U(U32(n));
  pc.U(U32(k));
  pc.U(U32(a.w.dtype));
  pc.U(a.bias.buffer != nullptr ? 1 : 0);
  if (m <= kVecMaxRows) {
    return dev->Dispatch(Shader::matmul_vec, operands, pc, static_cast<uint64_t>(m * n));
  }
  const uint64_t tiles_n = CeilDiv(n, 32);
  pc.U(U32(tiles_n));
  return dev->Dispatch(Shader::matmul_tile, operands, pc, CeilDiv(m, 32) * tiles_n);
}

}  // namespace vulkan
}  // namespace oxinfer
