// unary, glu, binary (broadcasting), scale and softmax against
// double-precision formulas, on strided views and in place, every variant.
#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/backends/cpu/cpu_test_util.h"

namespace oxinfer {
namespace cpu_test {
namespace {

double Formula(int32_t fn, double v) {
  switch (fn) {
    case OXI_UNARY_NONE:
      return v;
    case OXI_UNARY_GELU_TANH:
      return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
    case OXI_UNARY_SILU:
      return v / (1 + std::exp(-v));
    case OXI_UNARY_SIGMOID:
      return 1 / (1 + std::exp(-v));
    case OXI_UNARY_SOFTPLUS:
      return v > 20 ? v : std::log1p(std::exp(v));
    case OXI_UNARY_EXP:
      return std::exp(v);
    case OXI_UNARY_TANH:
      return std::tanh(v);
    case OXI_UNARY_GELU_ERF:
      return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
    case OXI_UNARY_QUICK_GELU:
      return v / (1 + std::exp(-1.702 * v));
    case OXI_UNARY_RELU:
      return v > 0 ? v : 0.0;
  }
  return NAN;
}

const int32_t kFns[] = {OXI_UNARY_NONE,    OXI_UNARY_GELU_TANH, OXI_UNARY_SILU,
                        OXI_UNARY_SIGMOID, OXI_UNARY_SOFTPLUS,  OXI_UNARY_EXP,
                        OXI_UNARY_TANH,    OXI_UNARY_GELU_ERF,  OXI_UNARY_QUICK_GELU,
                        OXI_UNARY_RELU};

// Inputs that reach every branch: tails (odd columns), the series / large
// branches of tanh, softplus's cut at 20, exp's clamps.
std::vector<float> Inputs(int64_t rows, int64_t cols) {
  std::vector<float> x = Random(rows * cols, 51, -12.0f, 12.0f);
  const float edges[] = {0.0f,  -0.0f, 1e-6f,  -1e-4f, 0.39f,  0.41f, 19.9f,  20.0f,
                         20.5f, 30.0f, -30.0f, 80.0f,  -80.0f, 87.0f, -100.0f};
  for (size_t i = 0; i < sizeof edges / sizeof edges[0] && i < x.size(); ++i) x[i * 3] = edges[i];
  return x;
}

TEST(CpuUnary, EveryFunctionStridedAndInPlace) {
  const int64_t rows = 7, cols = 149;
  const std::vector<float> x = Inputs(rows, cols);
  for (const Variant& v : Variants()) {
    Dev dev(v);
    for (int32_t fn : kFns) {
      SCOPED_TRACE(v.name + " fn " + std::to_string(fn));
      auto a = Make<oxi_unary_args>(OXI_OP_UNARY);
      a.fn = fn;
      a.x = dev.F32(x, rows, cols, cols + 5);
      a.out = dev.EmptyF32(rows, cols, cols + 2);
      ASSERT_EQ(dev.Run(a.op), OXI_OK) << dev.error();
      const std::vector<float> out = dev.ReadF32(a.out);
      a.out = a.x;  // in place
      ASSERT_EQ(dev.Run(a.op), OXI_OK) << dev.error();
      EXPECT_EQ(dev.ReadF32(a.x), out);
      for (size_t i = 0; i < x.size(); ++i) {
        const double want = Formula(fn, x[i]);
        ASSERT_NEAR(out[i], want, 2e-6 * std::fabs(want) + 2e-6) << "x=" << x[i];
      }
    }
    auto a = Make<oxi_unary_args>(OXI_OP_UNARY);
    a.fn = 99;
    a.x = dev.F32(x, rows, cols);
    a.out = dev.EmptyF32(rows, cols);
    dev.ExpectRejected(a.op, "unary: unknown function 99");
  }
}

TEST(CpuGlu, ActOfGateTimesUp) {
  const int64_t rows = 5, cols = 77;
  const std::vector<float> gate = Inputs(rows, cols), up = Random(rows * cols, 9, -3.0f, 3.0f);
  for (const Variant& v : Variants()) {
    Dev dev(v);
    for (int32_t fn : kFns) {
      SCOPED_TRACE(v.name + " act " + std::to_string(fn));
      auto a = Make<oxi_glu_args>(OXI_OP_GLU);
      a.act = fn;
      // gate and up as column views of one [rows][2 * cols] projection.
      std::vector<float> both(rows * 2 * cols);
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < cols; ++c) {
          both[r * 2 * cols + c] = gate[r * cols + c];
          both[r * 2 * cols + cols + c] = up[r * cols + c];
        }
      }
      const sdk::Tensor fused = dev.F32(both, rows, 2 * cols);
      a.gate = fused.Cols(0, cols);
      a.up = fused.Cols(cols, cols);
      a.out = dev.EmptyF32(rows, cols);
      ASSERT_EQ(dev.Run(a.op), OXI_OK) << dev.error();
      const std::vector<float> out = dev.ReadF32(a.out);
      a.out = a.up;  // in place over up
      ASSERT_EQ(dev.Run(a.op), OXI_OK) << dev.error();
      EXPECT_EQ(dev.ReadF32(a.up), out);
      for (size_t i = 0; i < out.size(); ++i) {
        const double want = Formula(fn, gate[i]) * up[i];
        ASSERT_NEAR(out[i], want, 4e-6 * std::fabs(want) + 8e-6) << "gate=" << gate[i];
      }
    }
  }
}

TEST(CpuBinary, BroadcastStridedInPlace) {
  const int64_t rows = 7, cols = 13;
  const std::vector<float> a0 = Random(rows * cols, 61);
  std::vector<float> b0 = Random(rows * cols, 62);
  for (float& f : b0) f += 2.0f;  // no division by ~0
  for (const Variant& v : Variants()) {
    Dev dev(v);
    for (int64_t br : {rows, int64_t{1}}) {
      for (int64_t bc : {cols, int64_t{1}}) {
        for (int32_t fn : {OXI_BINARY_ADD, OXI_BINARY_SUB, OXI_BINARY_MUL, OXI_BINARY_DIV}) {
          SCOPED_TRACE(v.name + " b " + std::to_string(br) + "x" + std::to_string(bc) + " fn " +
                       std::to_string(fn));
          std::vector<float> b(br * bc);
          for (int64_t i = 0; i < br * bc; ++i) b[i] = b0[i];
          auto a = Make<oxi_binary_args>(OXI_OP_BINARY);
          a.fn = fn;
          a.a = dev.F32(a0, rows, cols, cols + 3);
          a.b = dev.F32(b, br, bc, bc + 1);
          a.out = a.a;  // in place
          ASSERT_EQ(dev.Run(a.op), OXI_OK) << dev.error();
          const std::vector<float> out = dev.ReadF32(a.out);
          for (int64_t r = 0; r < rows; ++r) {
            for (int64_t c = 0; c < cols; ++c) {
              const float u = a0[r * cols + c];
              const float w = b[(br == 1 ? 0 : r) * bc + (bc == 1 ? 0 : c)];
              const float want = fn == OXI_BINARY_ADD   ? u + w
                                 : fn == OXI_BINARY_SUB ? u - w
                                 : fn == OXI_BINARY_MUL ? u * w
                                                        : u / w;
              ASSERT_EQ(out[r * cols + c], want) << r << " " << c;
            }
          }
        }
      }
    }
    auto a = Make<oxi_binary_args>(OXI_OP_BINARY);
    a.fn = OXI_BINARY_ADD;
    a.a = dev.F32(a0, rows, cols);
    a.b = dev.F32(Random(2 * cols, 1), 2, cols);
    a.out = dev.EmptyF32(rows, cols);
    dev.ExpectRejected(a.op, "binary: b is 2x13");
  }
}

TEST(CpuScale, StridedAndInPlace) {
  const int64_t rows = 3, cols = 41;
  const std::vector<float> x = Random(rows * cols, 71);
  for (const Variant& v : Variants()) {
    SCOPED_TRACE(v.name);
    Dev dev(v);
    auto a = Make<oxi_scale_args>(OXI_OP_SCALE);
    a.x = dev.F32(x, rows, cols, cols + 7);
    a.out = a.x;
    a.scale = 1.5f;
    a.bias = -0.25f;
    ASSERT_EQ(dev.Run(a.op), OXI_OK) << dev.error();
    const std::vector<float> out = dev.ReadF32(a.out);
    for (size_t i = 0; i < x.size(); ++i) {
      const float prod = x[i] * 1.5f;
      ASSERT_EQ(out[i], prod + -0.25f) << i;
    }
    // Overlapping but not the same view: refused.
    a.out = a.x;
    a.out.offset += 4;
    dev.ExpectRejected(a.op, "scale: out overlaps x");
  }
}

TEST(CpuSoftmax, RowsStridedAndAllMasked) {
  const int64_t rows = 4, cols = 1001;
  std::vector<float> x = Random(rows * cols, 41, -20.0f, 20.0f);
  for (int64_t i = 0; i < cols; ++i) x[3 * cols + i] = -INFINITY;  // a row that sees nothing
  for (const Variant& v : Variants()) {
    SCOPED_TRACE(v.name);
    Dev dev(v);
    auto a = Make<oxi_softmax_args>(OXI_OP_SOFTMAX);
    a.x = dev.F32(x, rows, cols, cols + 16);
    a.out = dev.EmptyF32(rows, cols);
    a.scale = 0.5f;
    ASSERT_EQ(dev.Run(a.op), OXI_OK) << dev.error();
    const std::vector<float> out = dev.ReadF32(a.out);
    a.out = a.x;
    ASSERT_EQ(dev.Run(a.op), OXI_OK) << dev.error();
    EXPECT_EQ(dev.ReadF32(a.x), out);
    for (int64_t r = 0; r < 3; ++r) {
      double mx = -1e300, sum = 0.0;
      for (int64_t i = 0; i < cols; ++i) mx = std::max(mx, 0.5 * x[r * cols + i]);
      for (int64_t i = 0; i < cols; ++i) sum += std::exp(0.5 * x[r * cols + i] - mx);
      for (int64_t i = 0; i < cols; ++i) {
        const double want = std::exp(0.5 * x[r * cols + i] - mx) / sum;
        ASSERT_NEAR(out[r * cols + i], want, 2e-6 * want + 1e-12);
      }
    }
    for (int64_t i = 0; i < cols; ++i) ASSERT_EQ(out[3 * cols + i], 0.0f);
  }
}

}  // namespace
}  // namespace cpu_test
}  // namespace oxinfer
