#include "core/tensor.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace oxinfer {

absl::StatusOr<int64_t> ShapeNumElements(absl::Span<const int64_t> shape) {
  if (shape.size() > static_cast<size_t>(kMaxTensorDims)) {
    return absl::InvalidArgumentError(absl::StrFormat("shape %s has %d dimensions, more than %d",
                                                      ShapeString(shape), shape.size(),
                                                      kMaxTensorDims));
  }
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("shape %s has a negative dimension", ShapeString(shape)));
    }
    if (__builtin_mul_overflow(n, d, &n)) {
      return absl::InvalidArgumentError(
          absl::StrFormat("shape %s: element count overflows int64", ShapeString(shape)));
    }
  }
  return n;
}

absl::StatusOr<int64_t> ShapeByteSize(oxi_dtype dtype, absl::Span<const int64_t> shape) {
  absl::StatusOr<int64_t> numel = ShapeNumElements(shape);
  if (!numel.ok()) return numel.status();
  const int64_t block_bytes = oxi_dtype_block_bytes(dtype);
  const int64_t block_elems = oxi_dtype_block_elems(dtype);
  if (block_bytes == 0) {
    return absl::InvalidArgumentError(absl::StrFormat("invalid dtype %d", static_cast<int>(dtype)));
  }
  if (block_elems > 1) {
    const int64_t last = shape.empty() ? 1 : shape.back();
    if (last % block_elems != 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s shape %s: last dimension is not a multiple of %d",
                          oxi_dtype_name(dtype), ShapeString(shape), block_elems));
    }
  }
  int64_t bytes;
  if (__builtin_mul_overflow(*numel / block_elems, block_bytes, &bytes)) {
    return absl::InvalidArgumentError(absl::StrFormat("%s shape %s: byte size overflows int64",
                                                      oxi_dtype_name(dtype), ShapeString(shape)));
  }
  return bytes;
}

std::string ShapeString(absl::Span<const int64_t> shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

namespace {

struct AlignedFree {
  void operator()(void* p) const { std::free(p); }
};

}  // namespace

absl::StatusOr<Tensor> Tensor::Allocate(oxi_dtype dtype, absl::Span<const int64_t> shape) {
  absl::StatusOr<int64_t> bytes = ShapeByteSize(dtype, shape);
  if (!bytes.ok()) return bytes.status();
  // aligned_alloc needs a size that is a multiple of the alignment.
  const size_t padded =
      (static_cast<size_t>(*bytes) + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment;
  void* p = std::aligned_alloc(kTensorAlignment, padded == 0 ? kTensorAlignment : padded);
  if (p == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrFormat("cannot allocate %d bytes for a %s%s tensor", *bytes, oxi_dtype_name(dtype),
                        oxinfer::ShapeString(shape)));
  }
  std::memset(p, 0, padded == 0 ? kTensorAlignment : padded);
  Tensor t;
  t.dtype_ = dtype;
  t.rank_ = static_cast<int>(shape.size());
  std::copy(shape.begin(), shape.end(), t.dims_.begin());
  t.numel_ = *ShapeNumElements(shape);
  t.byte_size_ = *bytes;
  t.data_ = p;
  t.owned_ = true;
  t.holder_ = std::shared_ptr<void>(p, AlignedFree());
  return t;
}

absl::StatusOr<Tensor> Tensor::Borrow(oxi_dtype dtype, absl::Span<const int64_t> shape,
                                      const void* data, int64_t byte_size,
                                      std::shared_ptr<const void> keep_alive) {
  absl::StatusOr<int64_t> bytes = ShapeByteSize(dtype, shape);
  if (!bytes.ok()) return bytes.status();
  if (*bytes != byte_size) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s%s needs %d bytes, the view has %d", oxi_dtype_name(dtype),
                        oxinfer::ShapeString(shape), *bytes, byte_size));
  }
  if (data == nullptr && byte_size != 0) {
    return absl::InvalidArgumentError("null data for a non-empty tensor view");
  }
  Tensor t;
  t.dtype_ = dtype;
  t.rank_ = static_cast<int>(shape.size());
  std::copy(shape.begin(), shape.end(), t.dims_.begin());
  t.numel_ = *ShapeNumElements(shape);
  t.byte_size_ = byte_size;
  t.data_ = data;
  t.owned_ = false;
  t.holder_ = std::move(keep_alive);
  return t;
}

int64_t Tensor::row_bytes() const {
  if (dtype_ == OXI_DTYPE_INVALID) return 0;
  if (rank_ == 0) return oxi_dtype_block_bytes(dtype_);
  return oxi_dtype_row_bytes(dtype_, dims_[rank_ - 1]);
}

int64_t Tensor::rows() const {
  if (rank_ == 0) return dtype_ == OXI_DTYPE_INVALID ? 0 : 1;
  const int64_t last = dims_[rank_ - 1];
  return last == 0 ? 0 : numel_ / last;
}

std::string Tensor::DebugString() const {
  return absl::StrCat(oxi_dtype_name(dtype_), ShapeString());
}

}  // namespace oxinfer
