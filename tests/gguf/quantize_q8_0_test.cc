// QuantizeQ8_0 against ggml's quantize_row_q8_0_ref written out plainly
// (fmaxf, roundf): bit for bit on ordinary values, halves included, and
// defined (no undefined cast) on the values where the reference is not.
#include "core/gguf/quantize_q8_0.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "oxinfer/dtype.h"

namespace oxinfer::gguf {
namespace {

std::vector<uint8_t> Reference(const std::vector<float>& x) {
  std::vector<uint8_t> out(x.size() / kQ8_0BlockElems * kQ8_0BlockBytes);
  for (size_t b = 0; b < x.size() / kQ8_0BlockElems; ++b) {
    const float* v = &x[b * kQ8_0BlockElems];
    float amax = 0.0f;
    for (int j = 0; j < kQ8_0BlockElems; ++j) amax = fmaxf(amax, fabsf(v[j]));
    const float d = amax / 127.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    const uint16_t h = oxi_f32_to_f16(d);
    std::memcpy(&out[b * kQ8_0BlockBytes], &h, 2);
    for (int j = 0; j < kQ8_0BlockElems; ++j) {
      out[b * kQ8_0BlockBytes + 2 + j] =
          static_cast<uint8_t>(static_cast<int8_t>(roundf(v[j] * id)));
    }
  }
  return out;
}

std::vector<uint8_t> Quantised(const std::vector<float>& x) {
  std::vector<uint8_t> out(x.size() / kQ8_0BlockElems * kQ8_0BlockBytes);
  QuantizeQ8_0(x.data(), static_cast<int64_t>(x.size()), out.data());
  return out;
}

TEST(QuantizeQ8_0, RandomBlocksAtEveryScaleMatchTheReference) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x;
  for (int scale = -30; scale <= 30; ++scale) {
    for (int block = 0; block < 64; ++block) {
      for (int j = 0; j < kQ8_0BlockElems; ++j) x.push_back(normal(rng) * std::pow(10.0f, scale));
    }
  }
  EXPECT_EQ(Quantised(x), Reference(x));
}

TEST(QuantizeQ8_0, HalvesRoundAwayFromZero) {
  // amax 127: the scale is exactly 1, so each value is its own quant.
  std::vector<float> x(kQ8_0BlockElems, 0.0f);
  x[0] = 127.0f;
  const float values[] = {0.5f,        -0.5f,      1.5f,    -1.5f,       2.5f,
                          -2.5f,       126.5f,     -126.5f, 0.49999997f, -0.49999997f,
                          0.50000006f, 3.4999998f, -0.0f,   1e-20f,      64.0f};
  for (size_t i = 0; i < sizeof values / sizeof values[0]; ++i) x[1 + i] = values[i];
  const std::vector<uint8_t> got = Quantised(x);
  EXPECT_EQ(got, Reference(x));
  EXPECT_EQ(static_cast<int8_t>(got[2 + 1]), 1);    // 0.5
  EXPECT_EQ(static_cast<int8_t>(got[2 + 2]), -1);   // -0.5
  EXPECT_EQ(static_cast<int8_t>(got[2 + 5]), 3);    // 2.5, not 2 as half-to-even
  EXPECT_EQ(static_cast<int8_t>(got[2 + 7]), 127);  // 126.5
  EXPECT_EQ(static_cast<int8_t>(got[2 + 9]), 0);    // 0.49999997
}

TEST(QuantizeQ8_0, ZeroBlocksAndDegenerateScalesAreDefined) {
  std::vector<float> x(4 * kQ8_0BlockElems, 0.0f);
  // Block 1: a subnormal amax, whose inverse scale is infinite.
  x[kQ8_0BlockElems] = 1e-40f;
  x[kQ8_0BlockElems + 1] = -1e-40f;
  // Block 2: a NaN beside ordinary values (passed over by the maximum).
  x[2 * kQ8_0BlockElems] = std::numeric_limits<float>::quiet_NaN();
  x[2 * kQ8_0BlockElems + 1] = 2.0f;
  // Block 3: an infinity.
  x[3 * kQ8_0BlockElems] = std::numeric_limits<float>::infinity();
  x[3 * kQ8_0BlockElems + 1] = 1.0f;
  const std::vector<uint8_t> got = Quantised(x);
  for (int j = 0; j < kQ8_0BlockBytes; ++j) EXPECT_EQ(got[j], 0) << j;  // all zero
  const uint8_t* b1 = &got[kQ8_0BlockBytes];
  EXPECT_EQ(static_cast<int8_t>(b1[2]), 127);
  EXPECT_EQ(static_cast<int8_t>(b1[3]), -127);
  EXPECT_EQ(b1[4], 0);
  const uint8_t* b2 = &got[2 * kQ8_0BlockBytes];
  EXPECT_EQ(b2[2], 0);
  EXPECT_EQ(static_cast<int8_t>(b2[3]), 127);
  const uint8_t* b3 = &got[3 * kQ8_0BlockBytes];
  EXPECT_EQ(b3[2], 0);  // inf * 0
  EXPECT_EQ(b3[3], 0);
}

}  // namespace
}  // namespace oxinfer::gguf
