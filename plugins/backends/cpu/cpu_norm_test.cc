// rms_norm, l2_norm, layer_norm, group_norm (+SiLU) and rope against
// double-precision formulas, on strided views and in place, every variant.
#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/backends/cpu/cpu_test_util.h"

namespace oxinfer {
namespace cpu_test {
namespace {

TEST(CpuRmsNorm, WeightOffsetsStrided) {
  const int64_t rows = 5, dim = 77;
  const std::vector<float> x = Random(rows * dim, 21, -3.0f, 3.0f);
  const std::vector<float> w = Random(dim, 22);
  for (const Variant& v : Variants()) {
    Dev dev(v);
    for (bool weighted : {true, false}) {
      for (float offset : {0.0f, 1.0f}) {
        SCOPED_TRACE(v.name + (weighted ? " weight" : "") + " offset " + std::to_string(offset));
        auto a = Make<oxi_rms_norm_args>(OXI_OP_RMS_NORM);
        a.x = dev.F32(x, rows, dim, dim + 3);
        if (weighted) a.weight = dev.F32(w, 1, dim);
        a.out = dev.EmptyF32(rows, dim, dim + 1);
        a.eps = 1e-6f;
        a.weight_offset = offset;
        ASSERT_EQ(dev.Run(a.op), OXI_OK) << dev.error();
        const std::vector<float> out = dev.ReadF32(a.out);
        a.out = a.x;
        ASSERT_EQ(dev.Run(a.op), OXI_OK) << dev.error();
        EXPECT_EQ(dev.ReadF32(a.x), out);
        for (int64_t r = 0; r < rows; ++r) {
          double ss = 0.0;
          for (int64_t i = 0; i < dim; ++i) ss += double(x[r * dim + i]) * x[r * dim + i];
          const double inv = 1.0 / std::sqrt(ss / dim + 1e-6);
          for (int64_t i = 0; i < dim; ++i) {
            const double g = weighted ? w[i] + double(offset) : 1.0;
            const double want = x[r * dim + i] * inv * g;
            ASSERT_NEAR(out[r * dim + i], want, 2e-6 * (1 + std::fabs(want)));
          }
        }
      }
    }
  }
}

TEST(CpuL2Norm, RowsScaled) {
  const int64_t rows = 6, dim = 128;
  const std::vector<float> x = Random(rows * dim, 23, -2.0f, 2.0f);
  for (const Variant& v : Variants()) {
    SCOPED_TRACE(v.name);
    Dev dev(v);
    auto a = Make<oxi_l2_norm_args>(OXI_OP_L2_NORM);
    a.x = dev.F32(x, rows, dim, 3 * dim);  // a column view of a wider projection
    a.out = a.x;
    a.eps = 1e-6f;
    a.scale = 0.125f;
    ASSERT_EQ(dev.Run(a.op), OXI_OK) << dev.error();
    const std::vector<float> out = dev.ReadF32(a.out);
    for (int64_t r = 0; r < rows; ++r) {
      double ss = 0.0;
      for (int64_t i = 0; i < dim; ++i) ss += double(x[r * dim + i]) * x[r * dim + i];
      for (int64_t i = 0; i < dim; ++i) {
        const double want = x[r * dim + i] / std::sqrt(ss + 1e-6) * 0.125;
        ASSERT_NEAR(out[r * dim + i], want, 1e-7);
      }
    }
  }
}

TEST(CpuLayerNorm, GammaBetaOptional) {
  const int64_t rows = 4, dim = 93;
  const std::vector<float> x = Random(rows * dim, 31, -4.0f, 6.0f);
  const std::vector<float> gamma = Random(dim, 32), beta = Random(dim, 33);
  for (const Variant& v : Variants()) {
    Dev dev(v);
    for (int affine = 0; affine < 3; ++affine) {
      SCOPED_TRACE(v.name + " affine " + std::to_string(affine));
      auto a = Make<oxi_layer_norm_args>(OXI_OP_LAYER_NORM);
      a.x = dev.F32(x, rows, dim, dim + 2);
      if (affine >= 1) a.gamma = dev.F32(gamma, 1, dim);
      if (affine >= 2) a.beta = dev.F32(beta, 1, dim);
      a.out = dev.EmptyF32(rows, dim);
      a.eps = 1e-5f;
      ASSERT_EQ(dev.Run(a.op), OXI_OK) << dev.error();
      const std::vector<float> out = dev.ReadF32(a.out);
      for (int64_t r = 0; r < rows; ++r) {
        double mean = 0.0, var = 0.0;
        for (int64_t i = 0; i < dim; ++i) mean += x[r * dim + i];
        mean /= dim;
        for (int64_t i = 0; i < dim; ++i) var += std::pow(x[r * dim + i] - mean, 2);
        var /= dim;
        for (int64_t i = 0; i < dim; ++i) {
          double want = (x[r * dim + i] - mean) / std::sqrt(var + 1e-5);
          if (affine >= 1) want *= gamma[i];
          if (affine >= 2) want += beta[i];
          ASSERT_NEAR(out[r * dim + i], want, 3e-6 * (1 + std::fabs(want)));
        }
      }
    }
  }
}

TEST(CpuGroupNorm, ChannelsLastBatchedWithSilu) {
  const int64_t batch = 2, pixels = 35, c = 48, groups = 6, cg = c / groups;
  const std::vector<float> x = Random(batch * pixels * c, 41, -3.0f, 5.0f);
  const std::vector<float> gamma = Random(c, 42), beta = Random(c, 43);
  for (const Variant& v : Variants()) {
    Dev dev(v);
    for (int32_t act : {OXI_UNARY_NONE, OXI_UNARY_SILU}) {
      SCOPED_TRACE(v.name + " act " + std::to_string(act));
      auto a = Make<oxi_group_norm_args>(OXI_OP_GROUP_NORM);
      a.x = dev.F32(x, batch * pixels, c, c + 4);
      a.gamma = dev.F32(gamma, 1, c);
      a.beta = dev.F32(beta, 1, c);
      a.out = a.x;  // in place
      a.groups = static_cast<int32_t>(groups);
      a.batch = static_cast<int32_t>(batch);
      a.eps = 1e-6f;
      a.act = act;
      ASSERT_EQ(dev.Run(a.op), OXI_OK) << dev.error();
      const std::vector<float> out = dev.ReadF32(a.out);
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t g = 0; g < groups; ++g) {
          double mean = 0.0, var = 0.0;
          for (int64_t p = 0; p < pixels; ++p) {
            for (int64_t i = 0; i < cg; ++i) mean += x[(b * pixels + p) * c + g * cg + i];
          }
          mean /= pixels * cg;
          for (int64_t p = 0; p < pixels; ++p) {
            for (int64_t i = 0; i < cg; ++i) {
              var += std::pow(x[(b * pixels + p) * c + g * cg + i] - mean, 2);
            }
          }
          var /= pixels * cg;
          for (int64_t p = 0; p < pixels; ++p) {
            for (int64_t i = 0; i < cg; ++i) {
              const int64_t at = (b * pixels + p) * c + g * cg + i;
              double want =
                  (x[at] - mean) / std::sqrt(var + 1e-6) * gamma[g * cg + i] + beta[g * cg + i];
              if (act == OXI_UNARY_SILU) want = want / (1 + std::exp(-want));
              ASSERT_NEAR(out[at], want, 3e-6 * (1 + std::fabs(want))) << b << " " << p << " " << i;
            }
          }
        }
      }
    }
    auto a = Make<oxi_group_norm_args>(OXI_OP_GROUP_NORM);
    a.x = dev.F32(x, batch * pixels, c);
    a.out = dev.EmptyF32(batch * pixels, c);
    a.groups = 7;
    dev.ExpectRejected(a.op, "group_norm: 7 groups do not divide 48");
    a.groups = 6;
    a.batch = 3;
    dev.ExpectRejected(a.op, "");
  }
}

TEST(CpuRope, RotateHalfPartialStrided) {
  const int64_t n_tok = 3;
  const int32_t n_heads = 2, head_dim = 12;
  const std::vector<int32_t> pos = {0, 5, 1000};
  for (int32_t rot_dim : {12, 8, 0}) {
    std::vector<float> inv_freq(rot_dim / 2);
    for (int i = 0; i < rot_dim / 2; ++i) inv_freq[i] = std::pow(10000.0f, -2.0f * i / rot_dim);
    const std::vector<float> x0 = Random(n_tok * n_heads * head_dim, 31);
    for (const Variant& v : Variants()) {
      for (bool in_place : {true, false}) {
        SCOPED_TRACE(v.name + " rot_dim " + std::to_string(rot_dim) +
                     (in_place ? " in place" : ""));
        Dev dev(v);
        auto a = Make<oxi_rope_args>(OXI_OP_ROPE);
        a.x = dev.F32(x0, n_tok, n_heads * head_dim, 40);  // q columns of a qkv projection
        a.pos = dev.I32(pos);
        a.inv_freq = dev.F32(inv_freq, 1, rot_dim / 2);
        a.out = in_place ? a.x : dev.EmptyF32(n_tok, n_heads * head_dim);
        a.n_heads = n_heads;
        a.head_dim = head_dim;
        a.rot_dim = rot_dim;
        if (!dev.Takes(a.op)) continue;  // a partial backend leaves it to the CPU
        ASSERT_EQ(dev.Run(a.op), OXI_OK) << dev.error();
        const std::vector<float> x = dev.ReadF32(a.out);
        const int half = rot_dim / 2;
        for (int64_t t = 0; t < n_tok; ++t) {
          for (int h = 0; h < n_heads; ++h) {
            const float* in = x0.data() + (t * n_heads + h) * head_dim;
            const float* o = x.data() + (t * n_heads + h) * head_dim;
            for (int i = 0; i < head_dim; ++i) {
              double want = in[i];
              if (i < rot_dim) {
                const int f = i % half;
                const double ang = double(float(pos[t]) * inv_freq[f]);
                want = i < half ? in[i] * std::cos(ang) - in[i + half] * std::sin(ang)
                                : in[i] * std::cos(ang) + in[i - half] * std::sin(ang);
              }
              ASSERT_NEAR(o[i], want, 1e-6) << t << " " << h << " " << i;
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace cpu_test
}  // namespace oxinfer
