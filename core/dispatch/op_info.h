// What the host knows about an operation from its header alone: the argument
// struct sizes of this ABI version, operand names for messages, the bytes an
// operand touches (checked for overflow), and a one-line shape description.
#ifndef OXINFER_CORE_DISPATCH_OP_INFO_H_
#define OXINFER_CORE_DISPATCH_OP_INFO_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "oxinfer/ops.h"

namespace oxinfer {
namespace dispatch {

// The most operands an op may have, and the largest argument struct of a
// kind this host does not know.
constexpr int kMaxOperands = 32;
constexpr size_t kMaxUnknownOpBytes = 1024;

// sizeof the argument struct of each kind of this ABI version (0: none).
extern const size_t kKnownArgsSizes[OXI_OP_KIND_COUNT];

// sizeof the argument struct of `kind` in this ABI version; 0 when unknown.
inline size_t KnownArgsSize(int kind) {
  return kind > 0 && kind < OXI_OP_KIND_COUNT ? kKnownArgsSizes[kind] : 0;
}

// "operand 1 (w)" for a known kind, "operand 1" otherwise.
std::string OperandLabel(int kind, int index);

// Whether an op's header is sound: its struct holds its operands, and is
// no larger than this host knows for its kind. Inline: asked of every op.
inline bool IsValidOpHeader(const oxi_op* op) {
  const size_t known = KnownArgsSize(op->kind);
  return op->n_tensors <= kMaxOperands && op->n_outputs <= op->n_tensors &&
         op->struct_size >= sizeof(oxi_op) + sizeof(oxi_tensor) * op->n_tensors &&
         op->struct_size <= (known != 0 ? known : kMaxUnknownOpBytes);
}
// Why a header is not (the message names the op); OK when it is.
absl::Status ValidateOpHeader(const oxi_op* op);

// The bytes [offset, offset + extent) an operand touches, and whether its
// rows follow each other without gaps (so writing all of it leaves no byte of
// its extent untouched). False for an invalid dtype or shape, a negative
// stride, or an overflow. Inline, without divisions: asked of every operand.
inline bool ComputeExtent(const oxi_tensor& t, uint64_t* extent, bool* packed) {
  const oxi_dtype dtype = static_cast<oxi_dtype>(t.dtype);
  // Bounded first so that the row size cannot overflow.
  if (t.cols < 0 || t.cols > (int64_t{1} << 56) || t.rows < 0 || t.row_stride < 0) return false;
  const int64_t unit = oxi_dtype_block_bytes(dtype);
  if (unit == 0) return false;
  int64_t row = t.cols * unit;
  if (oxi_dtype_block_elems(dtype) != 1) {
    if (t.cols % OXI_QK != 0) return false;
    row = t.cols / OXI_QK * unit;
  }
  int64_t bytes = 0;
  if (t.rows == 0) {
    bytes = 0;
  } else if (t.row_stride == 0) {
    if (__builtin_mul_overflow(row, t.rows, &bytes)) return false;
  } else if (__builtin_mul_overflow(t.row_stride, t.rows - 1, &bytes) ||
             __builtin_add_overflow(bytes, row, &bytes)) {
    return false;
  }
  *extent = static_cast<uint64_t>(bytes);
  *packed = t.row_stride == 0 || t.rows <= 1 || t.row_stride == row;
  return true;
}
// The extent, or the error saying why there is none.
absl::StatusOr<uint64_t> OperandExtent(const oxi_tensor& t);

// "x[4][64] f32, w[32][64] bf16, bias -, y[4][32] f32".
std::string DescribeOperands(const oxi_op* op);

}  // namespace dispatch
}  // namespace oxinfer

#endif  // OXINFER_CORE_DISPATCH_OP_INFO_H_
