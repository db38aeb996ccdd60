// 2-D convolution of channels-last images as a GEMM: output pixels are
// gathered (im2col, zero padding) in chunks of rows into scratch, then
// multiplied by the weights [cout][kh * kw * cin] with the matmul kernels;
// a 1x1 stride-1 convolution is the matmul itself. The SD plugin's approach,
// whose results it keeps.
#include <algorithm>
#include <cstring>

#include "plugins/backends/cpu/buffer.h"
#include "plugins/backends/cpu/matmul_kernels.h"
#include "plugins/backends/cpu/op_table.h"
#include "plugins/backends/cpu/rows.h"
#include "plugins/backends/cpu/runtime.h"
#include "plugins/backends/cpu/validate.h"

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {
namespace {

using ll = long long;

// Bytes of gathered rows per chunk: many rows per pass over the weights.
constexpr int64_t kChunkBytes = int64_t{64} << 20;

struct ConvShape {
  int64_t batch, h, w, cin, kh, kw, stride, pad, ho, wo, cout;
};

ConvShape ShapeOf(const oxi_conv2d_args& a) {
  ConvShape s{a.batch == 0 ? 1 : a.batch,
              a.height,
              a.width,
              a.x.cols,
              a.kh,
              a.kw,
              a.stride,
              a.pad,
              0,
              0,
              a.w.rows};
  s.ho = (s.h + 2 * s.pad - s.kh) / s.stride + 1;
  s.wo = (s.w + 2 * s.pad - s.kw) / s.stride + 1;
  return s;
}

// Output pixels [r0, r0 + n) as rows of kh * kw * cin, (ky, kx, ci) order.
void Im2Col(const oxi_tensor& x, const ConvShape& s, int64_t r0, int64_t n, float* cols) {
  const int64_t k = s.kh * s.kw * s.cin;
  Parallel(n, 16, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t g = r0 + r;
      const int64_t b = g / (s.ho * s.wo), oy = (g / s.wo) % s.ho, ox = g % s.wo;
      float* dst = cols + r * k;
      for (int64_t ky = 0; ky < s.kh; ++ky) {
        const int64_t iy = oy * s.stride - s.pad + ky;
        for (int64_t kx = 0; kx < s.kw; ++kx) {
          const int64_t ix = ox * s.stride - s.pad + kx;
          float* d = dst + (ky * s.kw + kx) * s.cin;
          if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) {
            std::fill(d, d + s.cin, 0.0f);
          } else {
            std::memcpy(d, RowPtr<const float>(x, (b * s.h + iy) * s.w + ix),
                        s.cin * sizeof(float));
          }
        }
      }
    }
  });
}

}  // namespace

int32_t CheckConv2d(const Report& r, const oxi_op& op) {
  const auto& a = As<oxi_conv2d_args>(op);
  OXI_CPU_TRY(ExpectF32(r, "x", a.x));
  OXI_CPU_TRY(ExpectF32(r, "out", a.out));
  if (!IsFloatType(TypeOf(a.w))) {
    return r.Fail(OXI_INVALID_ARGUMENT, "w is %s, not f32, f16 or bf16", TypeName(a.w));
  }
  if (a.batch < 0 || a.height < 0 || a.width < 0 || a.kh <= 0 || a.kw <= 0 || a.stride <= 0 ||
      a.pad < 0) {
    return r.Fail(OXI_INVALID_ARGUMENT, "batch %d, %dx%d image, %dx%d kernel, stride %d, pad %d",
                  a.batch, a.height, a.width, a.kh, a.kw, a.stride, a.pad);
  }
  const ConvShape s = ShapeOf(a);
  if (s.h + 2 * s.pad < s.kh || s.w + 2 * s.pad < s.kw) {
    return r.Fail(OXI_INVALID_ARGUMENT,
                  "a %lldx%lld kernel is larger than the padded %lldx%lld image", ll(s.kh),
                  ll(s.kw), ll(s.h + 2 * s.pad), ll(s.w + 2 * s.pad));
  }
  OXI_CPU_TRY(
      ExpectShape(r, "x", a.x, s.batch * s.h * s.w, s.cin, "batch x height x width pixels"));
  OXI_CPU_TRY(ExpectShape(r, "w", a.w, s.cout, s.kh * s.kw * s.cin, "kh x kw x cin per output"));
  OXI_CPU_TRY(ExpectShape(r, "out", a.out, s.batch * s.ho * s.wo, s.cout,
                          "batch x ho x wo pixels by w's rows"));
  if (Present(a.bias)) {
    OXI_CPU_TRY(ExpectF32(r, "bias", a.bias));
    OXI_CPU_TRY(ExpectShape(r, "bias", a.bias, 1, s.cout, "one value per output channel"));
  }
  return OXI_OK;
}

int32_t RunConv2d(const Report&, const oxi_op& op) {
  const auto& a = As<oxi_conv2d_args>(op);
  const ConvShape s = ShapeOf(a);
  const int64_t k = s.kh * s.kw * s.cin, total = s.batch * s.ho * s.wo;
  const uint8_t* w = Data(a.w);
  const oxi_dtype wt = TypeOf(a.w);
  const int64_t w_stride = oxi_tensor_stride(&a.w);
  const float* bias = Present(a.bias) ? RowPtr<const float>(a.bias, 0) : nullptr;
  if (total == 0 || s.cout == 0) return OXI_OK;
  if (s.kh == 1 && s.kw == 1 && s.stride == 1 && s.pad == 0) {
    MatmulStrided(RowPtr<const float>(a.x, 0), Ld(a.x), total, k, w, wt, w_stride, s.cout, bias,
                  RowPtr<float>(a.out, 0), Ld(a.out));
    return OXI_OK;
  }
  const int64_t chunk = std::max<int64_t>(1, std::min<int64_t>(total, kChunkBytes / (k * 4)));
  float* cols = static_cast<float*>(Scratch(kScratchOp, chunk * k * sizeof(float)));
  for (int64_t r0 = 0; r0 < total; r0 += chunk) {
    const int64_t rn = std::min(chunk, total - r0);
    Im2Col(a.x, s, r0, rn, cols);
    MatmulStrided(cols, k, rn, k, w, wt, w_stride, s.cout, bias, RowPtr<float>(a.out, r0),
                  Ld(a.out));
  }
  return OXI_OK;
}

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer
