#include "oxinfer/dtype.h"

#include <cmath>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"

namespace {

TEST(DtypeTest, BlockSizes) {
  EXPECT_EQ(oxi_dtype_block_bytes(OXI_DTYPE_Q8_0), 34);
  EXPECT_EQ(oxi_dtype_block_bytes(OXI_DTYPE_Q4_0), 18);
  EXPECT_EQ(oxi_dtype_row_bytes(OXI_DTYPE_Q4_0, 64), 36);
  EXPECT_EQ(oxi_dtype_row_bytes(OXI_DTYPE_Q4_0, 63), -1);
  EXPECT_EQ(oxi_dtype_row_bytes(OXI_DTYPE_BF16, 7), 14);
}

TEST(DtypeTest, InterleavedFormsKeepThePlainSizes) {
  EXPECT_EQ(oxi_dtype_plain(OXI_DTYPE_Q4_0_X8), OXI_DTYPE_Q4_0);
  EXPECT_EQ(oxi_dtype_plain(OXI_DTYPE_Q8_0_X8), OXI_DTYPE_Q8_0);
  EXPECT_EQ(oxi_dtype_plain(OXI_DTYPE_BF16), OXI_DTYPE_BF16);
  EXPECT_EQ(oxi_dtype_row_bytes(OXI_DTYPE_Q4_0_X8, 64), 36);
  EXPECT_EQ(oxi_dtype_row_bytes(OXI_DTYPE_Q8_0_X8, 64), 68);
  EXPECT_EQ(oxi_dtype_row_bytes(OXI_DTYPE_Q8_0_X8, 48), -1);
  EXPECT_STREQ(oxi_dtype_name(OXI_DTYPE_Q4_0_X8), "q4_0x8");
  EXPECT_TRUE(oxi_dtype_is_x8(OXI_DTYPE_Q8_0_X8));
  EXPECT_FALSE(oxi_dtype_is_x8(OXI_DTYPE_Q8_0));
}

// Builds a Q4_0x8 matrix byte by byte from the layout's description and
// reads every block back through oxi_dtype_x8_block.
TEST(DtypeTest, X8BlockFollowsTheDocumentedLayout) {
  const int64_t rows = 16, k = 96, nb = k / OXI_QK;
  std::vector<oxi_block_q4_0> plain(rows * nb);
  for (size_t i = 0; i < plain.size(); ++i) {
    plain[i].d = static_cast<uint16_t>(0x3c00 + i);
    for (int j = 0; j < 16; ++j) plain[i].qs[j] = static_cast<uint8_t>(i * 31 + j * 7);
  }
  std::vector<uint8_t> x8(rows * nb * 18);
  for (int64_t g = 0; g < rows / 8; ++g) {
    for (int64_t b = 0; b < nb; ++b) {
      uint8_t* sb = x8.data() + (g * nb + b) * 144;
      for (int r = 0; r < 8; ++r) {
        const oxi_block_q4_0& blk = plain[(g * 8 + r) * nb + b];
        std::memcpy(sb + 2 * r, &blk.d, 2);
        for (int t = 0; t < 4; ++t) {
          for (int u = 0; u < 4; ++u) sb[16 + 32 * t + 4 * r + u] = blk.qs[4 * t + u];
        }
      }
    }
  }
  for (int64_t row = 0; row < rows; ++row) {
    for (int64_t b = 0; b < nb; ++b) {
      oxi_block_q4_0 got;
      oxi_dtype_x8_block(x8.data(), OXI_DTYPE_Q4_0_X8, k, row, b, &got);
      const oxi_block_q4_0& want = plain[row * nb + b];
      ASSERT_EQ(got.d, want.d) << row << " " << b;
      ASSERT_EQ(std::memcmp(got.qs, want.qs, 16), 0) << row << " " << b;
    }
  }
}

TEST(DtypeTest, F16RoundTripsEveryValue) {
  for (uint32_t h = 0; h < 65536; ++h) {
    float f = oxi_f16_to_f32(static_cast<uint16_t>(h));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(oxi_f16_to_f32(oxi_f32_to_f16(f))));
      continue;
    }
    ASSERT_EQ(oxi_f32_to_f16(f), h) << "h=" << h;
  }
}

TEST(DtypeTest, F16RoundsToNearestEven) {
  EXPECT_EQ(oxi_f32_to_f16(65520.0f), 0x7c00);  // overflows to inf
  EXPECT_EQ(oxi_f32_to_f16(65519.0f), 0x7bff);
  EXPECT_EQ(oxi_f32_to_f16(std::ldexp(1.0f, -25)), 0);              // tie to even: 0
  EXPECT_EQ(oxi_f32_to_f16(std::ldexp(1.5f, -25)), 1);              // above the tie
  EXPECT_EQ(oxi_f32_to_f16(1.0f + std::ldexp(1.0f, -11)), 0x3c00);  // tie, even stays
  EXPECT_EQ(oxi_f32_to_f16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
}

TEST(DtypeTest, Bf16RoundsToNearestEven) {
  for (uint32_t h = 0; h < 65536; h += 7) {
    float f = oxi_bf16_to_f32(static_cast<uint16_t>(h));
    if (std::isnan(f)) continue;
    EXPECT_EQ(oxi_f32_to_bf16(f), h);
  }
  EXPECT_EQ(oxi_f32_to_bf16(oxi_bits_to_f32(0x3f808000u)), 0x3f80);  // tie, even
  EXPECT_EQ(oxi_f32_to_bf16(oxi_bits_to_f32(0x3f818000u)), 0x3f82);  // tie, up to even
  EXPECT_TRUE(std::isnan(oxi_bf16_to_f32(oxi_f32_to_bf16(NAN))));
}

}  // namespace
