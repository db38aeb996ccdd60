#include "tests/backends/mixed_program.h"

#include "tests/backends/dispatch_test_util.h"

namespace oxinfer {
namespace testing {

sdk::StatusOr<std::vector<std::vector<float>>> RunMixedProgram(const sdk::Compute& cx) {
  constexpr int64_t kTok = 4, kDim = 64, kHidden = 96, kSlots = 16;
  std::vector<std::vector<float>> outs;
  // Weights: float ones the arena takes, a quantised one it declines, and
  // one wrapped in place from host memory (valid on the CPU first).
  OXI_ASSIGN_OR_RETURN(sdk::OwnedTensor norm_w,
                       UploadAs(cx, RandomFloats(kDim, 1), 1, kDim, OXI_DTYPE_F32));
  OXI_ASSIGN_OR_RETURN(sdk::OwnedTensor w1, UploadAs(cx, RandomFloats(kHidden * kDim, 2, 0.2f),
                                                     kHidden, kDim, OXI_DTYPE_F32));
  OXI_ASSIGN_OR_RETURN(sdk::OwnedTensor b1,
                       UploadAs(cx, RandomFloats(kHidden, 3), 1, kHidden, OXI_DTYPE_F32));
  OXI_ASSIGN_OR_RETURN(sdk::OwnedTensor w2, UploadAs(cx, RandomFloats(kDim * kHidden, 4, 0.2f),
                                                     kDim, kHidden, OXI_DTYPE_BF16));
  OXI_ASSIGN_OR_RETURN(sdk::OwnedTensor wq, UploadAs(cx, RandomFloats(kDim * kDim, 5, 0.2f), kDim,
                                                     kDim, OXI_DTYPE_Q8_0));
  OXI_ASSIGN_OR_RETURN(sdk::OwnedTensor wh,
                       UploadAs(cx, RandomFloats(8 * kDim, 6, 0.2f), 8, kDim, OXI_DTYPE_F16));
  alignas(64) static float wrapped_host[16 * kDim];
  const std::vector<float> wrapped_values = RandomFloats(16 * kDim, 7, 0.2f);
  std::copy(wrapped_values.begin(), wrapped_values.end(), wrapped_host);
  sdk::OwnedTensor ww;
  auto wrapped = cx.Wrap(wrapped_host, sizeof wrapped_host, OXI_BUFFER_WEIGHTS);
  if (wrapped.ok()) {
    ww.buffer = std::move(*wrapped);
    ww.t = sdk::Tensor(ww.buffer.get(), 0, OXI_DTYPE_F32, 16, kDim);
  } else {
    OXI_ASSIGN_OR_RETURN(ww, UploadAs(cx, wrapped_values, 16, kDim, OXI_DTYPE_F32));
  }
  // A cache whose rows are written a few at a time (zeroed, read as a whole).
  OXI_ASSIGN_OR_RETURN(sdk::OwnedTensor cache,
                       cx.NewTensor(OXI_DTYPE_F32, kSlots, kDim, OXI_BUFFER_ZERO));

  sdk::Scratch scratch(&cx);
  const std::vector<float> x_host = RandomFloats(kTok * kDim, 8);
  OXI_ASSIGN_OR_RETURN(sdk::Tensor x, scratch.F32(x_host.data(), kTok, kDim));
  OXI_ASSIGN_OR_RETURN(sdk::Tensor xn, scratch.F32(kTok, kDim));
  OXI_ASSIGN_OR_RETURN(sdk::Tensor h1, scratch.F32(kTok, kHidden));
  OXI_ASSIGN_OR_RETURN(sdk::Tensor h2, scratch.F32(kTok, kDim));
  OXI_ASSIGN_OR_RETURN(sdk::Tensor h3, scratch.F32(kTok, kDim));
  OXI_ASSIGN_OR_RETURN(sdk::Tensor logits, scratch.F32(kSlots, 8));
  OXI_ASSIGN_OR_RETURN(sdk::Tensor side, scratch.F32(kTok, 16));
  OXI_ASSIGN_OR_RETURN(sdk::Tensor from_wrapped, scratch.F32(kTok, 16));
  const int32_t slot_ids[kTok] = {3, 7, 8, 12};
  OXI_ASSIGN_OR_RETURN(sdk::Tensor ids, scratch.I32(slot_ids, kTok));

  OXI_RETURN_IF_ERROR(cx.RmsNorm(x, norm_w, xn, 1e-6f, 1.0f));  // arena
  OXI_RETURN_IF_ERROR(cx.MatMul(xn, w1, h1, b1));               // arena
  OXI_RETURN_IF_ERROR(cx.Unary(OXI_UNARY_SILU, h1, h1));        // cpu, in place
  OXI_RETURN_IF_ERROR(cx.MatMul(h1, w2, h2));                   // arena, bf16
  OXI_RETURN_IF_ERROR(cx.Add(h2, x, h2));                       // cpu, residual in place
  OXI_RETURN_IF_ERROR(cx.MatMul(h2, wq, h3));                   // cpu: q8_0 declined
  OXI_RETURN_IF_ERROR(cx.SetRows(h3, ids, cache));              // cpu: 4 of 16 rows
  OXI_RETURN_IF_ERROR(cx.RmsNorm(cache.t.Rows(2, 4), sdk::Tensor(), cache.t.Rows(2, 4), 1e-5f));
  OXI_RETURN_IF_ERROR(cx.MatMul(cache, wh, logits));      // arena, f16, whole cache
  OXI_RETURN_IF_ERROR(cx.Softmax(logits, logits, 0.5f));  // cpu
  // A strided view (columns 16..79 of h1) in and out of the arena.
  const sdk::Tensor h1_mid = h1.Cols(16, kDim);
  OXI_RETURN_IF_ERROR(cx.MatMul(h1_mid, ww, from_wrapped));         // arena, wrapped weight
  OXI_RETURN_IF_ERROR(cx.RmsNorm(h1_mid, norm_w, h1_mid, 1e-6f));   // arena, strided in place
  OXI_RETURN_IF_ERROR(cx.Scale(h1.Cols(0, 16), side, 2.0f, 1.0f));  // cpu, strided input
  OXI_RETURN_IF_ERROR(cx.MatMul(h1_mid, ww, from_wrapped));         // arena again

  for (const sdk::Tensor* t : {&xn, &h1, &h2, &h3, &cache.t, &logits, &side, &from_wrapped}) {
    outs.push_back(ReadFloats(cx, *t));
  }
  return outs;
}

}  // namespace testing
}  // namespace oxinfer
