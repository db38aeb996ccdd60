// Depthwise causal convolution over time with its state (Qwen 3.5's DeltaNet
// conv), then SiLU. Each output is the Qwen plugin's double-precision sum
// over the taps in tap order, then y / (1 + exp(-y)); blocks of channels are
// computed side by side (contiguous, so the per-channel sums vectorise
// without changing their order).
#include <algorithm>
#include <cmath>

#include "plugins/backends/cpu/buffer.h"
#include "plugins/backends/cpu/op_table.h"
#include "plugins/backends/cpu/runtime.h"
#include "plugins/backends/cpu/validate.h"

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {
namespace {

constexpr int64_t kChannelBlock = 64;

}  // namespace

int32_t CheckConv1dCausal(const Report& r, const oxi_op& op) {
  const auto& a = As<oxi_conv1d_causal_args>(op);
  OXI_CPU_TRY(ExpectF32(r, "x", a.x));
  OXI_CPU_TRY(ExpectF32(r, "w", a.w));
  OXI_CPU_TRY(ExpectF32(r, "state", a.state));
  OXI_CPU_TRY(ExpectF32(r, "out", a.out));
  if (a.act != OXI_UNARY_NONE && a.act != OXI_UNARY_SILU) {
    return r.Fail(OXI_INVALID_ARGUMENT, "act %d: conv1d_causal applies NONE or SILU", a.act);
  }
  const int64_t c = a.x.cols, k = a.w.cols;
  if (k <= 0) return r.Fail(OXI_INVALID_ARGUMENT, "w has no taps (0 columns)");
  OXI_CPU_TRY(ExpectShape(r, "w", a.w, c, k, "one row of taps per channel of x"));
  OXI_CPU_TRY(ExpectShape(r, "state", a.state, k - 1, c, "the last K-1 inputs"));
  return ExpectSameShape(r, "out", a.out, "x", a.x);
}

int32_t RunConv1dCausal(const Report&, const oxi_op& op) {
  const auto& a = As<oxi_conv1d_causal_args>(op);
  const int64_t n = a.x.rows, channels = a.x.cols, kernel = a.w.cols, hist = kernel - 1;
  if (channels == 0) return OXI_OK;
  const bool silu = a.act == OXI_UNARY_SILU;
  // Row t of the padded input: the state's rows, then x's.
  auto xp = [&](int64_t t) {
    return t < hist ? RowPtr<const float>(a.state, t) : RowPtr<const float>(a.x, t - hist);
  };
  const int64_t blocks = (channels + kChannelBlock - 1) / kChannelBlock;
  const int64_t work = channels * (n + hist) * kernel;
  auto run = [&](int64_t b0, int64_t b1) {
    double acc[kChannelBlock];
    // The block's taps transposed: wt[j][c].
    float* wt = static_cast<float*>(Scratch(kScratchOp, kernel * kChannelBlock * sizeof(float)));
    for (int64_t blk = b0; blk < b1; ++blk) {
      const int64_t c0 = blk * kChannelBlock, cn = std::min(kChannelBlock, channels - c0);
      for (int64_t c = 0; c < cn; ++c) {
        const float* wc = RowPtr<const float>(a.w, c0 + c);
        for (int64_t j = 0; j < kernel; ++j) wt[j * kChannelBlock + c] = wc[j];
      }
      for (int64_t t = 0; t < n; ++t) {
        for (int64_t c = 0; c < cn; ++c) acc[c] = 0.0;
        for (int64_t j = 0; j < kernel; ++j) {
          const float* row = xp(t + j) + c0;
          const float* wj = wt + j * kChannelBlock;
          for (int64_t c = 0; c < cn; ++c) acc[c] += static_cast<double>(wj[c]) * row[c];
        }
        float* out = RowPtr<float>(a.out, t) + c0;
        for (int64_t c = 0; c < cn; ++c) {
          const float y = static_cast<float>(acc[c]);
          out[c] = silu ? y / (1.0f + std::exp(-y)) : y;
        }
      }
      // The state becomes the last K-1 rows of the padded input; rows read
      // (index n + j) are never below the row written (j).
      for (int64_t j = 0; j < hist; ++j) {
        float* dst = RowPtr<float>(a.state, j) + c0;
        const float* src = xp(n + j) + c0;
        for (int64_t c = 0; c < cn; ++c) dst[c] = src[c];
      }
    }
  };
  if (work < (int64_t{1} << 16)) {
    run(0, blocks);
  } else {
    Parallel(blocks, 1, run);
  }
  return OXI_OK;
}

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer
