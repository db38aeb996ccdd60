#include "plugins/backends/vulkan/ops.h"

namespace oxinfer {
namespace vulkan {

bool IsFloatOrBlock(int32_t dtype) {
  return dtype == OXI_DTYPE_F32 || dtype == OXI_DTYPE_BF16 || dtype == OXI_DTYPE_F16 ||
         dtype == OXI_DTYPE_Q8_0 || dtype == OXI_DTYPE_Q4_0;
}

bool IsF32(const oxi_tensor& t) { return t.buffer != nullptr && t.dtype == OXI_DTYPE_F32; }

bool SameShape(const oxi_tensor& a, const oxi_tensor& b) {
  return a.rows == b.rows && a.cols == b.cols;
}

bool WordAligned16(const oxi_tensor& t) {
  return t.cols % 2 == 0 && t.offset % 4 == 0 && oxi_tensor_stride(&t) % 4 == 0;
}

namespace {

bool SameView(const oxi_tensor& a, const oxi_tensor& b) {
  return a.buffer == b.buffer && a.offset == b.offset && a.dtype == b.dtype && a.rows == b.rows &&
         a.cols == b.cols && oxi_tensor_stride(&a) == oxi_tensor_stride(&b);
}

// Column views of one buffer with the same row stride whose columns do not
// meet (gate and up of a fused [rows][2 * cols] projection): their extents
// interleave but no word is shared.
bool DisjointColumns(const oxi_tensor& a, const oxi_tensor& b) {
  const uint64_t stride = static_cast<uint64_t>(oxi_tensor_stride(&a));
  if (stride == 0 || stride != static_cast<uint64_t>(oxi_tensor_stride(&b))) return false;
  const uint64_t wa =
      static_cast<uint64_t>(oxi_dtype_row_bytes(static_cast<oxi_dtype>(a.dtype), a.cols));
  const uint64_t wb =
      static_cast<uint64_t>(oxi_dtype_row_bytes(static_cast<oxi_dtype>(b.dtype), b.cols));
  // Shaders store 16-bit values as whole words: only word-aligned columns.
  if (wa > stride || wb > stride || (a.offset | b.offset | wa | wb | stride) % 4 != 0) return false;
  const uint64_t d = (b.offset + stride - a.offset % stride) % stride;  // b's start within a's row
  return wa <= d && d + wb <= stride;
}

// An output that overlaps an input without being the same view (in place):
// the ops' results would depend on the order threads run in.
bool PartlyOverlaps(const oxi_op& op) {
  const int first_out = op.n_tensors - op.n_outputs;
  for (int o = first_out; o < op.n_tensors; ++o) {
    const oxi_tensor* out = oxi_op_tensor(&op, o);
    if (out->buffer == nullptr) continue;
    const uint64_t o0 = out->offset, o1 = o0 + static_cast<uint64_t>(oxi_tensor_extent(out));
    for (int i = 0; i < op.n_tensors; ++i) {
      const oxi_tensor* in = oxi_op_tensor(&op, i);
      if (i == o || in->buffer != out->buffer) continue;
      const uint64_t i0 = in->offset, i1 = i0 + static_cast<uint64_t>(oxi_tensor_extent(in));
      if (i0 < o1 && o0 < i1 && !(i < first_out && SameView(*in, *out)) &&
          !DisjointColumns(*in, *out)) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace

bool OperandsFit(const Limits& limits, const oxi_op& op) {
  for (int i = 0; i < op.n_tensors; ++i) {
    const oxi_tensor* t = oxi_op_tensor(&op, i);
    if (t->buffer == nullptr) continue;
    const int64_t extent = oxi_tensor_extent(t);
    if (extent < 0 || t->rows <= 0 || t->cols <= 0) return false;
    if (t->row_stride < 0 || oxi_dtype_is_x8(static_cast<oxi_dtype>(t->dtype))) return false;
    const int64_t elem = oxi_dtype_block_elems(static_cast<oxi_dtype>(t->dtype)) == 1
                             ? oxi_dtype_block_bytes(static_cast<oxi_dtype>(t->dtype))
                             : 2;
    if (elem <= 0 || t->offset % elem != 0 || oxi_tensor_stride(t) % elem != 0) return false;
    const uint64_t rem = t->offset % limits.align;
    if (rem + static_cast<uint64_t>(extent) + 4 > limits.max_range) return false;
  }
  return !PartlyOverlaps(op);
}

// The argument struct's size of a kind this backend runs; 0 for others.
size_t ArgsSize(int kind) {
  switch (kind) {
    case OXI_OP_MATMUL:
      return sizeof(oxi_matmul_args);
    case OXI_OP_GET_ROWS:
      return sizeof(oxi_get_rows_args);
    case OXI_OP_SET_ROWS:
      return sizeof(oxi_set_rows_args);
    case OXI_OP_COPY:
      return sizeof(oxi_copy_args);
    case OXI_OP_FILL:
      return sizeof(oxi_fill_args);
    case OXI_OP_CONCAT:
      return sizeof(oxi_concat_args);
    case OXI_OP_UNARY:
      return sizeof(oxi_unary_args);
    case OXI_OP_BINARY:
      return sizeof(oxi_binary_args);
    case OXI_OP_SCALE:
      return sizeof(oxi_scale_args);
    case OXI_OP_GLU:
      return sizeof(oxi_glu_args);
    case OXI_OP_SOFTMAX:
      return sizeof(oxi_softmax_args);
    case OXI_OP_RMS_NORM:
      return sizeof(oxi_rms_norm_args);
    case OXI_OP_L2_NORM:
      return sizeof(oxi_l2_norm_args);
    case OXI_OP_ROPE:
      return sizeof(oxi_rope_args);
    case OXI_OP_ATTENTION:
      return sizeof(oxi_attention_args);
    case OXI_OP_CONV1D_CAUSAL:
      return sizeof(oxi_conv1d_causal_args);
    case OXI_OP_GATED_DELTA:
      return sizeof(oxi_gated_delta_args);
    case OXI_OP_CONV2D:
      return sizeof(oxi_conv2d_args);
    case OXI_OP_GROUP_NORM:
      return sizeof(oxi_group_norm_args);
    case OXI_OP_LAYER_NORM:
      return sizeof(oxi_layer_norm_args);
    case OXI_OP_UPSAMPLE_NEAREST:
      return sizeof(oxi_upsample_nearest_args);
    case OXI_OP_CLAMP:
      return sizeof(oxi_clamp_args);
    case OXI_OP_AVG_POOL2D:
      return sizeof(oxi_avg_pool2d_args);
    default:
      return 0;
  }
}

bool SupportsOp(const Limits& limits, const oxi_op& op) {
  const size_t size = ArgsSize(op.kind);
  if (size == 0 || op.struct_size < size) return false;  // unknown kinds: the CPU's
  oxi_op expect;
  oxi_op_init(&expect, sizeof expect, op.kind);
  if (op.n_tensors != expect.n_tensors || op.n_outputs != expect.n_outputs) return false;
  if (!OperandsFit(limits, op)) return false;
  switch (op.kind) {
    case OXI_OP_MATMUL:
      return SupportsMatmul(op);
    case OXI_OP_GET_ROWS:
    case OXI_OP_SET_ROWS:
    case OXI_OP_COPY:
    case OXI_OP_FILL:
    case OXI_OP_UNARY:
    case OXI_OP_CLAMP:
    case OXI_OP_BINARY:
    case OXI_OP_SCALE:
    case OXI_OP_GLU:
    case OXI_OP_RMS_NORM:
      return SupportsElementwise(op);
    case OXI_OP_SOFTMAX:
    case OXI_OP_L2_NORM:
    case OXI_OP_ROPE:
    case OXI_OP_CONCAT:
    case OXI_OP_ATTENTION:
    case OXI_OP_CONV1D_CAUSAL:
    case OXI_OP_GATED_DELTA:
      return SupportsSequence(op);
    case OXI_OP_CONV2D:
    case OXI_OP_GROUP_NORM:
    case OXI_OP_LAYER_NORM:
    case OXI_OP_UPSAMPLE_NEAREST:
    case OXI_OP_AVG_POOL2D:
      return SupportsImage(op);
    default:
      return false;  // kinds without a shader (or newer than this backend): the CPU's
  }
}

sdk::Status EncodeOp(Device* dev, const oxi_op& op) {
  switch (op.kind) {
    case OXI_OP_MATMUL:
      return EncodeMatmul(dev, op);
    case OXI_OP_SOFTMAX:
    case OXI_OP_L2_NORM:
    case OXI_OP_ROPE:
    case OXI_OP_CONCAT:
    case OXI_OP_ATTENTION:
    case OXI_OP_CONV1D_CAUSAL:
    case OXI_OP_GATED_DELTA:
      return EncodeSequence(dev, op);
    case OXI_OP_CONV2D:
    case OXI_OP_GROUP_NORM:
    case OXI_OP_LAYER_NORM:
    case OXI_OP_UPSAMPLE_NEAREST:
    case OXI_OP_AVG_POOL2D:
      return EncodeImage(dev, op);
    default:
      return EncodeElementwise(dev, op);
  }
}

}  // namespace vulkan
}  // namespace oxinfer
