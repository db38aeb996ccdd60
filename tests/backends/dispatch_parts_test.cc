// The dispatcher's pieces on their own: interval sets, buffer handles, the
// operand extents and the comparison of the check mode.
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "core/dispatch/check_log.h"
#include "core/dispatch/interval_set.h"
#include "core/dispatch/op_info.h"
#include "core/dispatch/virtual_buffer.h"
#include "gtest/gtest.h"

namespace oxinfer {
namespace dispatch {
namespace {

std::vector<ByteRange> Ranges(std::initializer_list<ByteRange> r) { return r; }

TEST(IntervalSetTest, AddMergesOverlappingAndTouchingRanges) {
  IntervalSet s;
  s.Add(10, 20);
  s.Add(30, 40);
  EXPECT_EQ(s.ranges(), Ranges({{10, 20}, {30, 40}}));
  s.Add(20, 25);  // touches: one range
  EXPECT_EQ(s.ranges(), Ranges({{10, 25}, {30, 40}}));
  s.Add(5, 35);
  EXPECT_EQ(s.ranges(), Ranges({{5, 40}}));
  s.Add(12, 13);
  EXPECT_EQ(s.ranges(), Ranges({{5, 40}}));
  s.Add(7, 7);
  EXPECT_EQ(s.ranges(), Ranges({{5, 40}}));
}

TEST(IntervalSetTest, RemoveSplits) {
  IntervalSet s;
  s.Add(0, 100);
  s.Remove(10, 20);
  EXPECT_EQ(s.ranges(), Ranges({{0, 10}, {20, 100}}));
  s.Remove(5, 30);
  EXPECT_EQ(s.ranges(), Ranges({{0, 5}, {30, 100}}));
  s.Remove(0, 5);
  EXPECT_EQ(s.ranges(), Ranges({{30, 100}}));
  s.Remove(90, 200);
  EXPECT_EQ(s.ranges(), Ranges({{30, 90}}));
  s.Remove(0, 30);
  EXPECT_EQ(s.ranges(), Ranges({{30, 90}}));
  s.Remove(0, 1000);
  EXPECT_TRUE(s.empty());
}

TEST(IntervalSetTest, CoversIntersectsGaps) {
  IntervalSet s;
  s.Add(10, 20);
  s.Add(30, 40);
  EXPECT_TRUE(s.Covers(10, 20));
  EXPECT_TRUE(s.Covers(12, 18));
  EXPECT_FALSE(s.Covers(15, 35));
  EXPECT_TRUE(s.Covers(50, 50));
  EXPECT_TRUE(s.Intersects(19, 31));
  EXPECT_FALSE(s.Intersects(20, 30));
  std::vector<ByteRange> out;
  s.Gaps(0, 50, &out);
  EXPECT_EQ(out, Ranges({{0, 10}, {20, 30}, {40, 50}}));
  out.clear();
  s.Intersect(15, 35, &out);
  EXPECT_EQ(out, Ranges({{15, 20}, {30, 35}}));
  out.clear();
  s.Gaps(12, 18, &out);
  EXPECT_TRUE(out.empty());
}

// Against a byte map, over random adds and removes.
TEST(IntervalSetTest, AgreesWithABitmap) {
  std::mt19937 rng(7);
  IntervalSet s;
  std::vector<bool> bits(200, false);
  for (int step = 0; step < 5000; ++step) {
    const uint64_t a = rng() % 200, b = a + rng() % (200 - a + 1);
    const bool add = rng() % 2;
    add ? s.Add(a, b) : s.Remove(a, b);
    for (uint64_t i = a; i < b; ++i) bits[i] = add;
    // The ranges are sorted, disjoint, not touching, and match the bits.
    std::vector<bool> from_set(200, false);
    uint64_t last_end = 0;
    for (size_t i = 0; i < s.ranges().size(); ++i) {
      const ByteRange& r = s.ranges()[i];
      ASSERT_LT(r.begin, r.end);
      if (i > 0) {
        ASSERT_GT(r.begin, last_end);
      }
      last_end = r.end;
      for (uint64_t j = r.begin; j < r.end; ++j) from_set[j] = true;
    }
    ASSERT_EQ(from_set, bits) << "step " << step;
    const uint64_t q0 = rng() % 200, q1 = q0 + rng() % (200 - q0 + 1);
    bool all = true, any = false;
    for (uint64_t i = q0; i < q1; ++i) all &= bits[i], any |= bits[i];
    ASSERT_EQ(s.Covers(q0, q1), all);
    ASSERT_EQ(s.Intersects(q0, q1), any);
  }
}

TEST(BufferTableTest, HandlesOfFreedBuffersAreRefused) {
  BufferTable table;
  oxi_buffer* a = table.Add(std::make_unique<VirtualBuffer>());
  oxi_buffer* b = table.Add(std::make_unique<VirtualBuffer>());
  EXPECT_NE(a, b);
  EXPECT_NE(table.Find(a), nullptr);
  EXPECT_EQ(table.Find(nullptr), nullptr);
  EXPECT_NE(table.Remove(a), nullptr);
  EXPECT_EQ(table.Find(a), nullptr);
  EXPECT_EQ(table.Remove(a), nullptr);
  oxi_buffer* c = table.Add(std::make_unique<VirtualBuffer>());  // reuses a's slot
  EXPECT_NE(c, a);
  EXPECT_EQ(table.Find(a), nullptr);
  EXPECT_NE(table.Find(c), nullptr);
  EXPECT_EQ(table.Find(reinterpret_cast<oxi_buffer*>(uintptr_t{0xdead0000})), nullptr);
  EXPECT_EQ(table.Live().size(), 2u);
}

TEST(OpInfoTest, ExtentsAndTheirErrors) {
  oxi_tensor t = {};
  t.dtype = OXI_DTYPE_F32;
  t.rows = 3;
  t.cols = 4;
  EXPECT_EQ(*OperandExtent(t), 48u);
  t.row_stride = 64;
  EXPECT_EQ(*OperandExtent(t), 2 * 64 + 16u);
  uint64_t extent = 0;
  bool packed = true;
  ASSERT_TRUE(ComputeExtent(t, &extent, &packed));
  EXPECT_FALSE(packed);
  t.row_stride = 16;
  ASSERT_TRUE(ComputeExtent(t, &extent, &packed));
  EXPECT_TRUE(packed);
  t.dtype = OXI_DTYPE_Q4_0;
  t.cols = 64;
  t.row_stride = 0;
  ASSERT_TRUE(ComputeExtent(t, &extent, &packed));
  EXPECT_EQ(extent, 3 * 36u);
  t.cols = 48;
  EXPECT_FALSE(ComputeExtent(t, &extent, &packed));
  t.dtype = OXI_DTYPE_F32;
  t.cols = 4;
  t.rows = 0;
  EXPECT_EQ(*OperandExtent(t), 0u);
  t.rows = std::numeric_limits<int64_t>::max();
  EXPECT_FALSE(OperandExtent(t).ok());
  t.rows = 1;
  t.cols = std::numeric_limits<int64_t>::max();
  EXPECT_FALSE(OperandExtent(t).ok());
  t.cols = 4;
  t.row_stride = -16;
  EXPECT_FALSE(OperandExtent(t).ok());
  t.row_stride = 0;
  t.dtype = 99;
  EXPECT_FALSE(OperandExtent(t).ok());
  EXPECT_EQ(OperandLabel(OXI_OP_ATTENTION, 4), "operand 4 (kv_pos)");
  EXPECT_EQ(OperandLabel(200, 1), "operand 1");
}

TEST(CheckLogTest, RelativeErrorOfStridedHalfTensors) {
  oxi_tensor t = {};
  t.dtype = OXI_DTYPE_F16;
  t.rows = 2;
  t.cols = 2;
  t.row_stride = 8;  // two f16 and a 4-byte gap per row
  std::vector<uint16_t> a(6), b(6);
  const float va[4] = {1.0f, -2.0f, 3.0f, 4.0f}, vb[4] = {1.0f, -2.0f, 3.0f, 3.0f};
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 2; ++c) {
      a[r * 4 + c] = oxi_f32_to_f16(va[r * 2 + c]);
      b[r * 4 + c] = oxi_f32_to_f16(vb[r * 2 + c]);
    }
  }
  a[2] = 0x7e00;  // a NaN in the gap is not compared
  const auto* pa = reinterpret_cast<const uint8_t*>(a.data());
  const auto* pb = reinterpret_cast<const uint8_t*>(b.data());
  EXPECT_DOUBLE_EQ(RelativeError(t, pa, pb), 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(RelativeError(t, pb, pb), 0.0);
  a[0] = 0x7e00;  // a NaN where the reference has a number
  EXPECT_TRUE(std::isinf(RelativeError(t, pa, pb)));
}

}  // namespace
}  // namespace dispatch
}  // namespace oxinfer
