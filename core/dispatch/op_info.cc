#include "core/dispatch/op_info.h"

#include "absl/strings/str_cat.h"

namespace oxinfer {
namespace dispatch {
namespace {

// Operand names as in ops.h, indexed by oxi_op_kind.
const char* const kOperandNames[OXI_OP_KIND_COUNT][10] = {
    {},
    {"x", "w", "bias", "y"},
    {"src", "dst"},
    {"table", "ids", "out"},
    {"src", "ids", "dst"},
    {"src", "dst"},
    {"dst"},
    {"a", "b", "out"},
    {"x", "out"},
    {"a", "b", "out"},
    {"x", "out"},
    {"gate", "up", "out"},
    {"x", "out"},
    {"x", "weight", "out"},
    {"x", "out"},
    {"x", "gamma", "beta", "out"},
    {"x", "gamma", "beta", "out"},
    {"x", "pos", "inv_freq", "out"},
    {"q", "k", "v", "q_pos", "kv_pos", "mask", "q_span", "kv_span", "out"},
    {"x", "w", "state", "out"},
    {"q", "k", "v", "g", "beta", "state", "out"},
    {"x", "w", "bias", "out"},
    {"x", "out"},
    {"x", "out"},
    {"x", "out"},
    {"q", "k", "v", "rel", "out"},
};

const char* OperandName(int kind, int index) {
  if (kind <= 0 || kind >= OXI_OP_KIND_COUNT || index < 0 || index >= 10) return nullptr;
  return kOperandNames[kind][index];
}

}  // namespace

const size_t kKnownArgsSizes[OXI_OP_KIND_COUNT] = {
    0,
    sizeof(oxi_matmul_args),
    sizeof(oxi_convert_args),
    sizeof(oxi_get_rows_args),
    sizeof(oxi_set_rows_args),
    sizeof(oxi_copy_args),
    sizeof(oxi_fill_args),
    sizeof(oxi_concat_args),
    sizeof(oxi_unary_args),
    sizeof(oxi_binary_args),
    sizeof(oxi_scale_args),
    sizeof(oxi_glu_args),
    sizeof(oxi_softmax_args),
    sizeof(oxi_rms_norm_args),
    sizeof(oxi_l2_norm_args),
    sizeof(oxi_layer_norm_args),
    sizeof(oxi_group_norm_args),
    sizeof(oxi_rope_args),
    sizeof(oxi_attention_args),
    sizeof(oxi_conv1d_causal_args),
    sizeof(oxi_gated_delta_args),
    sizeof(oxi_conv2d_args),
    sizeof(oxi_upsample_nearest_args),
    sizeof(oxi_clamp_args),
    sizeof(oxi_avg_pool2d_args),
    sizeof(oxi_local_attention_args),
};

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
  uint64_t extent = 0;
  bool packed = false;
  if (ComputeExtent(t, &extent, &packed)) return extent;
  const oxi_dtype dtype = static_cast<oxi_dtype>(t.dtype);
  if (t.rows < 0 || t.row_stride < 0 || t.cols < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("a negative shape: ", t.rows, " x ", t.cols, ", row stride ", t.row_stride));
  }
  if (oxi_dtype_block_bytes(dtype) == 0 || t.cols > (int64_t{1} << 56) ||
      oxi_dtype_row_bytes(dtype, t.cols) < 0) {
    return absl::InvalidArgumentError(absl::StrCat("dtype ", t.dtype, " (", oxi_dtype_name(dtype),
                                                   ") with ", t.cols, " columns has no row size"));
  }
  return absl::InvalidArgumentError(
      absl::StrCat(t.rows, " rows of stride ", t.row_stride, " overflow"));
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
