// conv2d against a naive convolution (f32 / f16 / bf16 weights, padding,
// stride, 1x1, bias, batches, strided views) and upsample_nearest, every
// variant.
#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/backends/cpu/cpu_test_ref.h"
#include "plugins/backends/cpu/cpu_test_util.h"

namespace oxinfer {
namespace cpu_test {
namespace {

struct Conv {
  int64_t batch, h, w, cin, cout, kh, kw, stride, pad;
  bool bias;
};

TEST(CpuConv2d, MatchesNaiveConvolution) {
  const Conv cases[] = {
      {1, 7, 9, 5, 6, 3, 3, 1, 1, true},      // odd sizes, padding
      {2, 8, 8, 16, 20, 3, 3, 2, 1, false},   // stride 2, batch of two
      {1, 6, 5, 12, 33, 1, 1, 1, 0, true},    // 1x1: the matmul itself
      {2, 10, 4, 3, 8, 4, 2, 3, 2, true},     // uneven kernel, stride 3
      {1, 33, 31, 24, 40, 3, 3, 1, 1, true},  // many output pixels (prefill GEMM)
  };
  uint32_t seed = 1;
  for (const Conv& c : cases) {
    const int64_t ho = (c.h + 2 * c.pad - c.kh) / c.stride + 1;
    const int64_t wo = (c.w + 2 * c.pad - c.kw) / c.stride + 1;
    const int64_t k = c.kh * c.kw * c.cin;
    const std::vector<float> x = Random(c.batch * c.h * c.w * c.cin, seed++, -2.0f, 2.0f);
    const std::vector<float> wf = Random(c.cout * k, seed++);
    const std::vector<float> bias = Random(c.cout, seed++);
    for (oxi_dtype wt : {OXI_DTYPE_F32, OXI_DTYPE_F16, OXI_DTYPE_BF16}) {
      const std::vector<uint8_t> w = Encode(wf, c.cout, k, wt);
      const int64_t rb = oxi_dtype_row_bytes(wt, k);
      // The naive convolution, in double, from the stored weights.
      std::vector<double> ref(c.batch * ho * wo * c.cout), mag(ref.size());
      for (int64_t b = 0; b < c.batch; ++b) {
        for (int64_t oy = 0; oy < ho; ++oy) {
          for (int64_t ox = 0; ox < wo; ++ox) {
            for (int64_t o = 0; o < c.cout; ++o) {
              double s = c.bias ? bias[o] : 0.0, m = std::fabs(s);
              for (int64_t ky = 0; ky < c.kh; ++ky) {
                for (int64_t kx = 0; kx < c.kw; ++kx) {
                  const int64_t iy = oy * c.stride - c.pad + ky, ix = ox * c.stride - c.pad + kx;
                  if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;
                  for (int64_t ci = 0; ci < c.cin; ++ci) {
                    const double p = x[((b * c.h + iy) * c.w + ix) * c.cin + ci] *
                                     Elem(w.data() + o * rb, wt, (ky * c.kw + kx) * c.cin + ci);
                    s += p;
                    m += std::fabs(p);
                  }
                }
              }
              ref[((b * ho + oy) * wo + ox) * c.cout + o] = s;
              mag[((b * ho + oy) * wo + ox) * c.cout + o] = m;
            }
          }
        }
      }
      for (const Variant& v : Variants()) {
        SCOPED_TRACE(v.name + " " + oxi_dtype_name(wt) + " " + std::to_string(c.kh) + "x" +
                     std::to_string(c.kw) + " stride " + std::to_string(c.stride));
        Dev dev(v);
        auto a = Make<oxi_conv2d_args>(OXI_OP_CONV2D);
        a.x = dev.F32(x, c.batch * c.h * c.w, c.cin, c.cin + 3);
        a.w = dev.Upload(w.data(), wt, c.cout, k);
        if (c.bias) a.bias = dev.F32(bias, 1, c.cout);
        a.out = dev.EmptyF32(c.batch * ho * wo, c.cout, c.cout + 2);
        a.batch = static_cast<int32_t>(c.batch);
        a.height = static_cast<int32_t>(c.h);
        a.width = static_cast<int32_t>(c.w);
        a.kh = static_cast<int32_t>(c.kh);
        a.kw = static_cast<int32_t>(c.kw);
        a.stride = static_cast<int32_t>(c.stride);
        a.pad = static_cast<int32_t>(c.pad);
        ASSERT_EQ(dev.Run(a.op), OXI_OK) << dev.error();
        const std::vector<float> out = dev.ReadF32(a.out);
        const double rel = 2e-6 * std::sqrt(static_cast<double>(k)) + 1e-6;
        for (size_t i = 0; i < out.size(); ++i) {
          ASSERT_NEAR(out[i], ref[i], rel * mag[i] + 1e-30) << i;
        }
      }
    }
  }
}

TEST(CpuConv2d, RejectsBadShapes) {
  for (const Variant& v : Variants()) {
    Dev dev(v);
    auto a = Make<oxi_conv2d_args>(OXI_OP_CONV2D);
    a.x = dev.EmptyF32(4 * 4, 3);
    a.w = dev.EmptyF32(5, 3 * 3 * 3);
    a.out = dev.EmptyF32(4 * 4, 5);
    a.batch = 1, a.height = 4, a.width = 4, a.kh = 3, a.kw = 3, a.stride = 1, a.pad = 1;
    ASSERT_EQ(dev.Run(a.op), OXI_OK) << dev.error();
    a.pad = 0;
    dev.ExpectRejected(a.op, "conv2d: out is 16x5, not 4x5");
    a.pad = 1;
    a.w = dev.EmptyF32(5, 3 * 3 * 4);
    dev.ExpectRejected(a.op, "conv2d: w is 5x36, not 5x27");
    a.w = dev.Empty(OXI_DTYPE_Q8_0, 5, 32);
    dev.ExpectRejected(a.op, "");
  }
}

TEST(CpuUpsampleNearest, PixelsRepeated) {
  const int64_t batch = 2, h = 3, w = 5, c = 7, f = 2;
  const std::vector<float> x = Random(batch * h * w * c, 5);
  for (const Variant& v : Variants()) {
    SCOPED_TRACE(v.name);
    Dev dev(v);
    auto a = Make<oxi_upsample_nearest_args>(OXI_OP_UPSAMPLE_NEAREST);
    a.x = dev.F32(x, batch * h * w, c, c + 1);
    a.out = dev.EmptyF32(batch * h * f * w * f, c, c + 2);
    a.batch = batch, a.height = h, a.width = w, a.factor = f;
    ASSERT_EQ(dev.Run(a.op), OXI_OK) << dev.error();
    const std::vector<float> out = dev.ReadF32(a.out);
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t y = 0; y < h * f; ++y) {
        for (int64_t xx = 0; xx < w * f; ++xx) {
          for (int64_t ch = 0; ch < c; ++ch) {
            ASSERT_EQ(out[((b * h * f + y) * w * f + xx) * c + ch],
                      x[((b * h + y / f) * w + xx / f) * c + ch]);
          }
        }
      }
    }
    a.factor = 3;
    dev.ExpectRejected(a.op, "");
  }
}

TEST(CpuAvgPool2d, WindowMeans) {
  const int64_t batch = 2, h = 4, w = 6, c = 5, f = 2;
  const std::vector<float> x = Random(batch * h * w * c, 6);
  for (const Variant& v : Variants()) {
    SCOPED_TRACE(v.name);
    Dev dev(v);
    auto a = Make<oxi_avg_pool2d_args>(OXI_OP_AVG_POOL2D);
    a.x = dev.F32(x, batch * h * w, c, c + 1);
    a.out = dev.EmptyF32(batch * (h / f) * (w / f), c, c + 3);
    a.batch = batch, a.height = h, a.width = w, a.factor = f;
    if (!dev.Takes(a.op)) continue;  // a partial backend leaves it to the CPU
    ASSERT_EQ(dev.Run(a.op), OXI_OK) << dev.error();
    const std::vector<float> out = dev.ReadF32(a.out);
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t y = 0; y < h / f; ++y) {
        for (int64_t xx = 0; xx < w / f; ++xx) {
          for (int64_t ch = 0; ch < c; ++ch) {
            double sum = 0;
            for (int64_t i = 0; i < f; ++i) {
              for (int64_t j = 0; j < f; ++j) {
                sum += x[((b * h + y * f + i) * w + xx * f + j) * c + ch];
              }
            }
            EXPECT_NEAR(out[((b * (h / f) + y) * (w / f) + xx) * c + ch], sum / (f * f), 1e-6);
          }
        }
      }
    }
    a.factor = 4;  // 6 is not a multiple
    dev.ExpectRejected(a.op, "the sides must be multiples of it");
  }
}

TEST(CpuClamp, BoundsAndInPlace) {
  const std::vector<float> x = Random(7 * 9, 7);
  for (const Variant& v : Variants()) {
    SCOPED_TRACE(v.name);
    Dev dev(v);
    auto a = Make<oxi_clamp_args>(OXI_OP_CLAMP);
    a.x = dev.F32(x, 7, 9, 11);
    a.out = a.x;  // in place
    a.lo = -0.25f, a.hi = 0.5f;
    if (!dev.Takes(a.op)) continue;  // a partial backend leaves it to the CPU
    ASSERT_EQ(dev.Run(a.op), OXI_OK) << dev.error();
    const std::vector<float> out = dev.ReadF32(a.out);
    for (size_t i = 0; i < x.size(); ++i) {
      ASSERT_EQ(out[i], std::min(std::max(x[i], -0.25f), 0.5f)) << i;
    }
    a.lo = 1.0f;  // above hi
    dev.ExpectRejected(a.op, "above hi");
  }
}

}  // namespace
}  // namespace cpu_test
}  // namespace oxinfer
