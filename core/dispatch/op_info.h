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

// sizeof the argument struct of `kind` in this ABI version; 0 when unknown.
size_t KnownArgsSize(int kind);

// "operand 1 (w)" for a known kind, "operand 1" otherwise.
std::string OperandLabel(int kind, int index);

// Checks an op's header: its struct holds its operands, and is no larger
// than this host knows for its kind. The message names the op.
absl::Status ValidateOpHeader(const oxi_op* op);

// The bytes [offset, offset + extent) an operand touches: its extent, or an
// error for an invalid dtype / shape, a negative stride or an overflow.
absl::StatusOr<uint64_t> OperandExtent(const oxi_tensor& t);

// Whether an operand's rows follow each other without gaps (row_stride 0 or
// the row size): writing all of it leaves no byte of its extent untouched.
bool IsPacked(const oxi_tensor& t);

// "x[4][64] f32, w[32][64] bf16, bias -, y[4][32] f32".
std::string DescribeOperands(const oxi_op* op);

}  // namespace dispatch
}  // namespace oxinfer

#endif  // OXINFER_CORE_DISPATCH_OP_INFO_H_
