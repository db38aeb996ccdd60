#include "oxinfer/dtype.h"

#include <cmath>
#include <cstring>

#include "gtest/gtest.h"

namespace {

TEST(DtypeTest, BlockSizes) {
  EXPECT_EQ(oxi_dtype_block_bytes(OXI_DTYPE_Q8_0), 34);
  EXPECT_EQ(oxi_dtype_block_bytes(OXI_DTYPE_Q4_0), 18);
  EXPECT_EQ(oxi_dtype_row_bytes(OXI_DTYPE_Q4_0, 64), 36);
  EXPECT_EQ(oxi_dtype_row_bytes(OXI_DTYPE_Q4_0, 63), -1);
  EXPECT_EQ(oxi_dtype_row_bytes(OXI_DTYPE_BF16, 7), 14);
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
  EXPECT_EQ(oxi_f32_to_f16(std::ldexp(1.0f, -25)), 0);            // tie to even: 0
  EXPECT_EQ(oxi_f32_to_f16(std::ldexp(1.5f, -25)), 1);            // above the tie
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
