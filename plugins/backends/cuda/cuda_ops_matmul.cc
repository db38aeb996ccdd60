// Matmul: the decode GEMV for up to 8 rows, the tiled GEMM above; block
// weights after quantising the activations to Q8_0 (kernels/matmul.cu).
#include <algorithm>

#include "plugins/backends/cuda/cuda_ops.h"

namespace oxinfer {
namespace cuda {
namespace {

constexpr int64_t kDecodeRows = 8;  // kMaxDecodeRows in matmul.cu

uint32_t Blocks(int64_t n, int64_t per) { return static_cast<uint32_t>((n + per - 1) / per); }

}  // namespace

sdk::Status RunMatmul(Device& dev, const oxi_matmul_args& a) {
  if (a.x.cols != a.w.cols || a.y.rows != a.x.rows || a.y.cols != a.w.rows ||
      (a.bias.buffer != nullptr && a.bias.cols != a.w.rows)) {
    return sdk::InvalidArgumentError(sdk::StrCat("matmul: x ", a.x.rows, "x", a.x.cols, ", w ",
                                                 a.w.rows, "x", a.w.cols, ", y ", a.y.rows, "x",
                                                 a.y.cols, " do not fit"));
  }
  MatmulParams p{ToMat(a.x), ToMat(a.w), ToMat(a.bias), ToMat(a.y), 0};
  const int64_t m = a.x.rows, n = a.w.rows;
  const bool block = a.w.dtype == OXI_DTYPE_Q8_0 || a.w.dtype == OXI_DTYPE_Q4_0;
  if (block) {
    const int64_t nb = a.x.cols / 32;
    OXI_ASSIGN_OR_RETURN(p.xq, dev.ScratchMemory(Scratch::kQuantisedX, m * nb * 36));
    QuantizeParams q{p.x, p.xq};
    const int64_t warps = m * nb;
    const uint32_t grid = static_cast<uint32_t>(std::min<int64_t>((warps + 7) / 8, 65535));
    OXI_RETURN_IF_ERROR(dev.Launch("ox_quantize_q8", grid, 1, 256, 0, {&q}));
  }
  // Decode (up to 16 rows: speculative verification too): one pass over the
  // weights per 8 rows. Prefill: tiles.
  if (m > 0 && m <= 2 * kDecodeRows) {
    for (int64_t r0 = 0; r0 < m; r0 += kDecodeRows) {
      MatmulParams part = p;
      const int64_t rows = std::min(kDecodeRows, m - r0);
      part.x.ptr += r0 * p.x.stride;
      part.x.rows = rows;
      part.y.ptr += r0 * p.y.stride;
      part.y.rows = rows;
      if (block) part.xq += r0 * (a.x.cols / 32) * 36;
      OXI_RETURN_IF_ERROR(dev.Launch(block ? "ox_matmul_quant_gemv" : "ox_matmul_float_gemv",
                                     Blocks(n, 4), 1, 128, 0, {&part}));
    }
    return sdk::OkStatus();
  }
  if (block) {
    return dev.Launch("ox_matmul_quant_gemm", Blocks(n, 32), Blocks(m, 32), 256, 0, {&p});
  }
  return dev.Launch("ox_matmul_float_gemm", Blocks(n, 64), Blocks(m, 64), 256, 0, {&p});
}

}  // namespace cuda
}  // namespace oxinfer
