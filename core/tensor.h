// Tensor: a typed, shaped view of bytes, as the core and model plugins use it.
//
// A Tensor either owns a 64-byte-aligned heap buffer (Tensor::Allocate) or
// borrows memory that something else keeps alive, typically a mapped
// safetensors file (Tensor::Borrow with the mapping as `keep_alive`). Copies
// are cheap and share the memory; the element layouts are those of
// oxinfer/dtype.h.
#ifndef OXINFER_CORE_TENSOR_H_
#define OXINFER_CORE_TENSOR_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "oxinfer/dtype.h"

namespace oxinfer {

inline constexpr int kMaxTensorDims = 8;
inline constexpr size_t kTensorAlignment = 64;

// Number of elements of `shape` (1 for a scalar); INVALID_ARGUMENT for a
// negative dimension, more than kMaxTensorDims dimensions or an int64 overflow.
absl::StatusOr<int64_t> ShapeNumElements(absl::Span<const int64_t> shape);

// Bytes that `shape` of `dtype` occupies; INVALID_ARGUMENT for an invalid
// dtype, a quantised dtype whose last dimension is not a whole number of
// blocks, or an overflow.
absl::StatusOr<int64_t> ShapeByteSize(oxi_dtype dtype, absl::Span<const int64_t> shape);

// "[2, 3, 4]"; "[]" for a scalar.
std::string ShapeString(absl::Span<const int64_t> shape);

class Tensor {
 public:
  // An empty tensor: dtype invalid, no data.
  Tensor() = default;

  // A zero-filled tensor that owns its 64-byte aligned buffer.
  static absl::StatusOr<Tensor> Allocate(oxi_dtype dtype, absl::Span<const int64_t> shape);

  // A read-only view of `data` (exactly ShapeByteSize(dtype, shape) bytes,
  // checked against `byte_size`). `keep_alive` holds whatever owns the memory
  // (a file mapping) for as long as any copy of the view lives.
  static absl::StatusOr<Tensor> Borrow(oxi_dtype dtype, absl::Span<const int64_t> shape,
                                       const void* data, int64_t byte_size,
                                       std::shared_ptr<const void> keep_alive);

  oxi_dtype dtype() const { return dtype_; }
  int rank() const { return rank_; }
  int64_t dim(int i) const { return dims_[i]; }
  absl::Span<const int64_t> shape() const { return absl::MakeConstSpan(dims_.data(), rank_); }
  int64_t numel() const { return numel_; }
  int64_t byte_size() const { return byte_size_; }
  // Bytes of one row (the last dimension); the element size for a scalar.
  int64_t row_bytes() const;
  // Rows: numel / last dimension (1 for a scalar; 0 when empty).
  int64_t rows() const;
  std::string ShapeString() const { return oxinfer::ShapeString(shape()); }
  // "bf16[2, 3]"
  std::string DebugString() const;

  bool empty() const { return data_ == nullptr && byte_size_ == 0; }
  bool owns_data() const { return owned_; }
  const void* data() const { return data_; }
  // Writable memory, or nullptr for a borrowed (read-only) view.
  void* mutable_data() { return owned_ ? const_cast<void*>(data_) : nullptr; }
  template <typename T>
  const T* data_as() const {
    return static_cast<const T*>(data_);
  }
  template <typename T>
  T* mutable_data_as() {
    return static_cast<T*>(mutable_data());
  }

 private:
  oxi_dtype dtype_ = OXI_DTYPE_INVALID;
  int rank_ = 0;
  std::array<int64_t, kMaxTensorDims> dims_{};
  int64_t numel_ = 0;
  int64_t byte_size_ = 0;
  const void* data_ = nullptr;
  bool owned_ = false;
  std::shared_ptr<const void> holder_;
};

}  // namespace oxinfer

#endif  // OXINFER_CORE_TENSOR_H_
