// Element-wise and row-wise ops: get_rows, set_rows, copy, fill, unary,
// scale, binary, glu, rms_norm.
#include "plugins/backends/vulkan/ops.h"

namespace oxinfer {
namespace vulkan {
namespace {

bool Float16or32(int32_t t) {
  return t == OXI_DTYPE_F32 || t == OXI_DTYPE_F16 || t == OXI_DTYPE_BF16;
}

// A float destination the copy shader writes (16-bit ones two to a word).
bool WritableFloat(const oxi_tensor& t) {
  if (t.dtype == OXI_DTYPE_F32) return true;
  return (t.dtype == OXI_DTYPE_F16 || t.dtype == OXI_DTYPE_BF16) && WordAligned16(t);
}

bool ValidFn(int32_t fn) { return fn >= OXI_UNARY_NONE && fn <= OXI_UNARY_RELU; }

uint64_t Elements(const oxi_tensor& t) { return static_cast<uint64_t>(t.rows * t.cols); }

sdk::Status Copy(Device* dev, const oxi_tensor* src, const oxi_tensor* ids, const oxi_tensor& dst,
                 uint32_t mode, float value, int64_t rows, int64_t cols) {
  PushConstants pc;
  pc.U(U32(rows));
  pc.U(U32(cols));
  pc.U(src != nullptr ? U32(src->dtype) : 0);
  pc.U(U32(dst.dtype));
  pc.U(mode);
  pc.U(U32(dst.rows));
  pc.F(value);
  const bool wide = dst.dtype == OXI_DTYPE_F32 || dst.dtype == OXI_DTYPE_I32;
  const uint64_t wcols = wide ? cols : CeilDiv(cols, 2);
  const uint64_t threads = mode == 2 ? wcols : rows * wcols;
  return dev->Dispatch(Shader::copy,
                       {src ? dev->Bind(*src) : dev->Bind(oxi_tensor{}),
                        ids ? dev->Bind(*ids) : dev->Bind(oxi_tensor{}), dev->Bind(dst)},
                       pc, CeilDiv(threads, 256));
}

}  // namespace

bool SupportsElementwise(const oxi_op& op) {
  switch (op.kind) {
    case OXI_OP_GET_ROWS: {
      const auto& a = reinterpret_cast<const oxi_get_rows_args&>(op);
      return a.table.buffer && IsFloatOrBlock(a.table.dtype) && a.ids.buffer &&
             a.ids.dtype == OXI_DTYPE_I32 && a.ids.rows == 1 && IsF32(a.out) &&
             a.out.rows == a.ids.cols && a.out.cols == a.table.cols &&
             (oxi_dtype_block_elems(static_cast<oxi_dtype>(a.table.dtype)) == 1 ||
              a.table.cols % OXI_QK == 0);
    }
    case OXI_OP_SET_ROWS: {
      const auto& a = reinterpret_cast<const oxi_set_rows_args&>(op);
      return IsF32(a.src) && a.ids.buffer && a.ids.dtype == OXI_DTYPE_I32 && a.ids.rows == 1 &&
             a.ids.cols == a.src.rows && a.dst.buffer && WritableFloat(a.dst) &&
             a.dst.cols == a.src.cols;
    }
    case OXI_OP_COPY: {
      const auto& a = reinterpret_cast<const oxi_copy_args&>(op);
      return a.src.buffer && a.dst.buffer && Float16or32(a.src.dtype) && WritableFloat(a.dst) &&
             SameShape(a.src, a.dst);
    }
    case OXI_OP_FILL: {
      const auto& a = reinterpret_cast<const oxi_fill_args&>(op);
      return a.dst.buffer && (WritableFloat(a.dst) || a.dst.dtype == OXI_DTYPE_I32);
    }
    case OXI_OP_UNARY: {
      const auto& a = reinterpret_cast<const oxi_unary_args&>(op);
      return IsF32(a.x) && IsF32(a.out) && SameShape(a.x, a.out) && ValidFn(a.fn);
    }
    case OXI_OP_SCALE: {
      const auto& a = reinterpret_cast<const oxi_scale_args&>(op);
      return IsF32(a.x) && IsF32(a.out) && SameShape(a.x, a.out);
    }
    case OXI_OP_CLAMP: {  // lo > hi (or NaN bounds): the CPU's error
      const auto& a = reinterpret_cast<const oxi_clamp_args&>(op);
      return IsF32(a.x) && IsF32(a.out) && SameShape(a.x, a.out) && a.lo <= a.hi;
    }
    case OXI_OP_BINARY: {
      const auto& a = reinterpret_cast<const oxi_binary_args&>(op);
      return IsF32(a.a) && IsF32(a.b) && IsF32(a.out) && SameShape(a.a, a.out) &&
             (a.b.rows == 1 || a.b.rows == a.a.rows) && (a.b.cols == 1 || a.b.cols == a.a.cols) &&
             a.fn >= OXI_BINARY_ADD && a.fn <= OXI_BINARY_DIV;
    }
    case OXI_OP_GLU: {
      const auto& a = reinterpret_cast<const oxi_glu_args&>(op);
      return IsF32(a.gate) && IsF32(a.up) && IsF32(a.out) && SameShape(a.gate, a.up) &&
             SameShape(a.gate, a.out) && ValidFn(a.act);
    }
    case OXI_OP_RMS_NORM: {
      const auto& a = reinterpret_cast<const oxi_rms_norm_args&>(op);
      return IsF32(a.x) && IsF32(a.out) && SameShape(a.x, a.out) &&
             (a.weight.buffer == nullptr || (IsF32(a.weight) && a.weight.cols == a.x.cols));
    }
    default:
      return false;
  }
}

sdk::Status EncodeElementwise(Device* dev, const oxi_op& op) {
  switch (op.kind) {
    case OXI_OP_GET_ROWS: {
      const auto& a = reinterpret_cast<const oxi_get_rows_args&>(op);
      PushConstants pc;
      pc.U(U32(a.out.rows));
      pc.U(U32(a.out.cols));
      pc.U(U32(a.table.dtype));
      pc.U(U32(a.table.rows));
      return dev->Dispatch(Shader::get_rows,
                           {dev->Bind(a.table), dev->Bind(a.ids), dev->Bind(a.out)}, pc,
                           CeilDiv(Elements(a.out), 256));
    }
    case OXI_OP_SET_ROWS: {
      const auto& a = reinterpret_cast<const oxi_set_rows_args&>(op);
      return Copy(dev, &a.src, &a.ids, a.dst, 2, 0.0f, a.src.rows, a.src.cols);
    }
    case OXI_OP_COPY: {
      const auto& a = reinterpret_cast<const oxi_copy_args&>(op);
      return Copy(dev, &a.src, nullptr, a.dst, 0, 0.0f, a.src.rows, a.src.cols);
    }
    case OXI_OP_FILL: {
      const auto& a = reinterpret_cast<const oxi_fill_args&>(op);
      return Copy(dev, nullptr, nullptr, a.dst, 1, a.value, a.dst.rows, a.dst.cols);
    }
    case OXI_OP_UNARY:
    case OXI_OP_SCALE:
    case OXI_OP_CLAMP: {
      const bool scale = op.kind == OXI_OP_SCALE, clamp = op.kind == OXI_OP_CLAMP;
      const auto& u = reinterpret_cast<const oxi_unary_args&>(op);
      const auto& s = reinterpret_cast<const oxi_scale_args&>(op);
      const auto& c = reinterpret_cast<const oxi_clamp_args&>(op);
      const oxi_tensor& x = scale ? s.x : clamp ? c.x : u.x;
      const oxi_tensor& out = scale ? s.out : clamp ? c.out : u.out;
      PushConstants pc;
      pc.U(U32(x.rows));
      pc.U(U32(x.cols));
      pc.U(scale || clamp ? 0 : U32(u.fn));
      pc.U(scale ? 1 : clamp ? 2 : 0);
      pc.F(scale ? s.scale : clamp ? c.lo : 0.0f);
      pc.F(scale ? s.bias : clamp ? c.hi : 0.0f);
      return dev->Dispatch(Shader::unary, {dev->Bind(x), dev->Bind(out)}, pc,
                           CeilDiv(Elements(x), 256));
    }
    case OXI_OP_BINARY:
    case OXI_OP_GLU: {
      const bool glu = op.kind == OXI_OP_GLU;
      const auto& b = reinterpret_cast<const oxi_binary_args&>(op);
      const auto& g = reinterpret_cast<const oxi_glu_args&>(op);
      const oxi_tensor& x = glu ? g.gate : b.a;
      const oxi_tensor& y = glu ? g.up : b.b;
      const oxi_tensor& out = glu ? g.out : b.out;
      PushConstants pc;
      pc.U(U32(x.rows));
      pc.U(U32(x.cols));
      pc.U(U32(y.rows));
      pc.U(U32(y.cols));
      pc.U(glu ? 0 : U32(b.fn));
      pc.U(glu ? U32(g.act) : 0);
      return dev->Dispatch(Shader::binary, {dev->Bind(x), dev->Bind(y), dev->Bind(out)}, pc,
                           CeilDiv(Elements(x), 256));
    }
    case OXI_OP_RMS_NORM: {
      const auto& a = reinterpret_cast<const oxi_rms_norm_args&>(op);
      PushConstants pc;
      pc.U(U32(a.x.rows));
      pc.U(U32(a.x.cols));
      pc.U(a.weight.buffer != nullptr ? 1 : 0);
      pc.F(a.eps);
      pc.F(a.weight_offset);
      return dev->Dispatch(Shader::rms_norm,
                           {dev->Bind(a.x), dev->Bind(a.weight), dev->Bind(a.out)}, pc,
                           static_cast<uint64_t>(a.x.rows));
    }
    default:
      return sdk::UnimplementedError(sdk::StrCat(oxi_op_name(op.kind), ": no Vulkan shader"));
  }
}

}  // namespace vulkan
}  // namespace oxinfer
