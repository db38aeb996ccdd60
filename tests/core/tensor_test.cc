#include "core/tensor.h"

#include <cstdint>
#include <limits>
#include <memory>

#include "gtest/gtest.h"

namespace oxinfer {
namespace {

TEST(ShapeTest, NumElementsAndString) {
  EXPECT_EQ(*ShapeNumElements({}), 1);
  EXPECT_EQ(*ShapeNumElements({2, 3, 4}), 24);
  EXPECT_EQ(*ShapeNumElements({5, 0}), 0);
  EXPECT_EQ(ShapeString({}), "[]");
  EXPECT_EQ(ShapeString({2, 3}), "[2, 3]");
}

TEST(ShapeTest, RefusesNegativeOverflowAndTooManyDims) {
  EXPECT_EQ(ShapeNumElements({2, -1}).status().code(), absl::StatusCode::kInvalidArgument);
  const int64_t big = std::numeric_limits<int64_t>::max() / 2;
  EXPECT_EQ(ShapeNumElements({big, 3}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ShapeNumElements({1, 1, 1, 1, 1, 1, 1, 1, 1}).status().code(),
            absl::StatusCode::kInvalidArgument);
  // Fits in elements, overflows in bytes.
  EXPECT_EQ(ShapeByteSize(OXI_DTYPE_F64, {big}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ShapeTest, ByteSizes) {
  EXPECT_EQ(*ShapeByteSize(OXI_DTYPE_BF16, {3, 5}), 30);
  EXPECT_EQ(*ShapeByteSize(OXI_DTYPE_Q8_0, {2, 64}), 2 * 2 * 34);
  EXPECT_EQ(*ShapeByteSize(OXI_DTYPE_Q4_0, {1, 32}), 18);
  EXPECT_FALSE(ShapeByteSize(OXI_DTYPE_Q4_0, {1, 33}).ok());
  EXPECT_FALSE(ShapeByteSize(OXI_DTYPE_INVALID, {1}).ok());
}

TEST(TensorTest, AllocateIsAlignedZeroedAndWritable) {
  absl::StatusOr<Tensor> t = Tensor::Allocate(OXI_DTYPE_F32, {3, 7});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_TRUE(t->owns_data());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t->data()) % kTensorAlignment, 0u);
  EXPECT_EQ(t->numel(), 21);
  EXPECT_EQ(t->byte_size(), 84);
  EXPECT_EQ(t->row_bytes(), 28);
  EXPECT_EQ(t->rows(), 3);
  EXPECT_EQ(t->rank(), 2);
  EXPECT_EQ(t->dim(1), 7);
  EXPECT_EQ(t->ShapeString(), "[3, 7]");
  EXPECT_EQ(t->DebugString(), "f32[3, 7]");
  for (int i = 0; i < 21; ++i) EXPECT_EQ(t->data_as<float>()[i], 0.0f);
  t->mutable_data_as<float>()[20] = 2.5f;
  Tensor copy = *t;  // shares the buffer
  EXPECT_EQ(copy.data_as<float>()[20], 2.5f);
}

TEST(TensorTest, QuantisedRowBytes) {
  absl::StatusOr<Tensor> t = Tensor::Allocate(OXI_DTYPE_Q8_0, {4, 64});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->row_bytes(), 68);
  EXPECT_EQ(t->byte_size(), 272);
}

TEST(TensorTest, ScalarAndEmpty) {
  absl::StatusOr<Tensor> s = Tensor::Allocate(OXI_DTYPE_I64, {});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->numel(), 1);
  EXPECT_EQ(s->row_bytes(), 8);
  EXPECT_EQ(s->rows(), 1);
  absl::StatusOr<Tensor> e = Tensor::Allocate(OXI_DTYPE_F16, {0, 4});
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->byte_size(), 0);
  EXPECT_EQ(e->rows(), 0);
  Tensor none;
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.dtype(), OXI_DTYPE_INVALID);
}

TEST(TensorTest, BorrowKeepsOwnerAlive) {
  auto owner = std::make_shared<std::vector<uint16_t>>(6, 0x3f80);
  std::weak_ptr<std::vector<uint16_t>> weak = owner;
  absl::StatusOr<Tensor> t = Tensor::Borrow(OXI_DTYPE_BF16, {2, 3}, owner->data(), 12, owner);
  ASSERT_TRUE(t.ok()) << t.status();
  owner.reset();
  EXPECT_FALSE(weak.expired());
  EXPECT_FALSE(t->owns_data());
  EXPECT_EQ(t->mutable_data(), nullptr);
  EXPECT_EQ(oxi_bf16_to_f32(t->data_as<uint16_t>()[5]), 1.0f);
  *t = Tensor();
  EXPECT_TRUE(weak.expired());
}

TEST(TensorTest, BorrowChecksSize) {
  char buf[16] = {};
  EXPECT_EQ(Tensor::Borrow(OXI_DTYPE_F32, {2, 3}, buf, 16, nullptr).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace oxinfer
