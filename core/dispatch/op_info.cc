#include "core/dispatch/op_info.h"

#include "absl/strings/str_cat.h"

namespace oxinfer {
namespace dispatch {
namespace {

struct KindInfo {
  size_t size;
  const char* operands[10];
};

// Indexed by oxi_op_kind; operand names as in ops.h.
const KindInfo kKinds[OXI_OP_KIND_COUNT] = {
    {0, {}},
    {sizeof(oxi_matmul_args), {"x", "w", "bias", "y"}},
    {sizeof(oxi_convert_args), {"src", "dst"}},
    {sizeof(oxi_get_rows_args), {"table", "ids", "out"}},
    {sizeof(oxi_set_rows_args), {"src", "ids", "dst"}},
    {sizeof(oxi_copy_args), {"src", "dst"}},
    {sizeof(oxi_fill_args), {"dst"}},
    {sizeof(oxi_concat_args), {"a", "b", "out"}},
    {sizeof(oxi_unary_args), {"x", "out"}},
    {sizeof(oxi_binary_args), {"a", "b", "out"}},
    {sizeof(oxi_scale_args), {"x", "out"}},
    {sizeof(oxi_glu_args), {"gate", "up", "out"}},
    {sizeof(oxi_softmax_args), {"x", "out"}},
    {sizeof(oxi_rms_norm_args), {"x", "weight", "out"}},
    {sizeof(oxi_l2_norm_args), {"x", "out"}},
    {sizeof(oxi_layer_norm_args), {"x", "gamma", "beta", "out"}},
    {sizeof(oxi_group_norm_args), {"x", "gamma", "beta", "out"}},
    {sizeof(oxi_rope_args), {"x", "pos", "inv_freq", "out"}},
    {sizeof(oxi_attention_args),
     {"q", "k", "v", "q_pos", "kv_pos", "mask", "q_span", "kv_span", "out"}},
    {sizeof(oxi_conv1d_causal_args), {"x", "w", "state", "out"}},
    {sizeof(oxi_gated_delta_args), {"q", "k", "v", "g", "beta", "state", "out"}},
    {sizeof(oxi_conv2d_args), {"x", "w", "bias", "out"}},
    {sizeof(oxi_upsample_nearest_args), {"x", "out"}},
};

const char* OperandName(int kind, int index) {
  if (kind <= 0 || kind >= OXI_OP_KIND_COUNT || index < 0 || index >= 10) return nullptr;
  return kKinds[kind].operands[index];
}

}  // namespace

size_t KnownArgsSize(int kind) {
  return kind > 0 && kind < OXI_OP_KIND_COUNT ? kKinds[kind].size : 0;
}

std::string OperandLabel(int kind, int index) {
  const char* name = OperandName(kind, index);
  return name != nullptr ? absl::StrCat("operand ", index, " (", name, ")")
                         : absl::StrCat("operand ", index);
}

absl::Status ValidateOpHeader(const oxi_op* op) {
  const char* name = oxi_op_name(op->kind);
  if (op->n_tensors > kMaxOperands) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": ", op->n_tensors, " operands, more than ", kMaxOperands));
  }
  if (op->n_outputs > op->n_tensors) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": ", op->n_outputs, " outputs of ", op->n_tensors, " operands"));
  }
  const size_t needed = sizeof(oxi_op) + sizeof(oxi_tensor) * op->n_tensors;
  if (op->struct_size < needed) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": an argument struct of ",
                                                   op->struct_size, " bytes cannot hold its ",
                                                   int{op->n_tensors}, " operands"));
  }
  const size_t known = KnownArgsSize(op->kind);
  const size_t limit = known != 0 ? known : kMaxUnknownOpBytes;
  if (op->struct_size > limit) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " (kind ", op->kind, "): an argument struct of ", op->struct_size,
                     " bytes, larger than the ", limit, " this host knows (a newer plugin?)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> OperandExtent(const oxi_tensor& t) {
  const oxi_dtype dtype = static_cast<oxi_dtype>(t.dtype);
  // Bounded first so that the row size cannot overflow.
  const bool cols_ok = t.cols >= 0 && t.cols <= (int64_t{1} << 56);
  const int64_t row = cols_ok ? oxi_dtype_row_bytes(dtype, t.cols) : -1;
  if (oxi_dtype_block_bytes(dtype) == 0 || row < 0) {
    return absl::InvalidArgumentError(absl::StrCat("dtype ", t.dtype, " (", oxi_dtype_name(dtype),
                                                   ") with ", t.cols, " columns has no row size"));
  }
  if (t.rows < 0 || t.row_stride < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("a negative shape: ", t.rows, " rows, row stride ", t.row_stride));
  }
  if (t.rows == 0) return 0;
  int64_t extent;
  if (t.row_stride == 0) {
    if (__builtin_mul_overflow(row, t.rows, &extent)) {
      return absl::InvalidArgumentError(absl::StrCat(t.rows, " rows of ", row, " bytes overflow"));
    }
  } else if (__builtin_mul_overflow(t.row_stride, t.rows - 1, &extent) ||
             __builtin_add_overflow(extent, row, &extent)) {
    return absl::InvalidArgumentError(
        absl::StrCat(t.rows, " rows of stride ", t.row_stride, " overflow"));
  }
  return static_cast<uint64_t>(extent);
}

bool IsPacked(const oxi_tensor& t) {
  return t.row_stride == 0 || t.rows <= 1 ||
         t.row_stride == oxi_dtype_row_bytes(static_cast<oxi_dtype>(t.dtype), t.cols);
}

std::string DescribeOperands(const oxi_op* op) {
  std::string out;
  for (int i = 0; i < op->n_tensors; ++i) {
    const oxi_tensor* t = oxi_op_tensor(op, i);
    const char* name = OperandName(op->kind, i);
    const std::string label = name != nullptr ? name : absl::StrCat("t", i);
    if (i > 0) out += ", ";
    if (t->buffer == nullptr) {
      absl::StrAppend(&out, label, " -");
    } else {
      absl::StrAppend(&out, label, "[", t->rows, "][", t->cols, "] ",
                      oxi_dtype_name(static_cast<oxi_dtype>(t->dtype)));
    }
  }
  return out;
}

}  // namespace dispatch
}  // namespace oxinfer
