// "plain-cpu": a small host-memory CPU backend for the dispatcher's tests,
// until they can run on the real CPU reference too. It runs the handful of
// ops the tests use, with plain loops (matmul and rms_norm are the arena's
// own code, ../plain_kernels.h, so compositions must match it bit for bit).
// Every operand's extent is checked against its buffer.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "oxinfer/plugin.hpp"
#include "tests/backends/plain_kernels.h"

namespace oxinfer {
namespace plain_cpu {
namespace {

using test_backends::Element;
using test_backends::Row;
using test_backends::RowF32;

bool IsFloat(int32_t t) { return t == OXI_DTYPE_F32 || t == OXI_DTYPE_BF16 || t == OXI_DTYPE_F16; }

void StoreFloat(int32_t dtype, uint8_t* row, int64_t c, float v) {
  if (dtype == OXI_DTYPE_F32) {
    std::memcpy(row + 4 * c, &v, 4);
    return;
  }
  const uint16_t h = dtype == OXI_DTYPE_BF16 ? oxi_f32_to_bf16(v) : oxi_f32_to_f16(v);
  std::memcpy(row + 2 * c, &h, 2);
}

float Unary(int32_t fn, float x) {
  switch (fn) {
    case OXI_UNARY_SILU:
      return x / (1.0f + std::exp(-x));
    case OXI_UNARY_SIGMOID:
      return 1.0f / (1.0f + std::exp(-x));
    case OXI_UNARY_EXP:
      return std::exp(x);
    case OXI_UNARY_TANH:
      return std::tanh(x);
    case OXI_UNARY_RELU:
      return x > 0.0f ? x : 0.0f;
    default:
      return x;
  }
}

float Binary(int32_t fn, float a, float b) {
  switch (fn) {
    case OXI_BINARY_ADD:
      return a + b;
    case OXI_BINARY_SUB:
      return a - b;
    case OXI_BINARY_MUL:
      return a * b;
    default:
      return a / b;
  }
}

template <typename Args>
const Args& As(const oxi_op& op) {
  return reinterpret_cast<const Args&>(op);
}

class PlainCpu {
 public:
  bool Supports(const oxi_op& op) const {
    if (op.struct_size < KnownSize(op.kind)) return false;
    switch (op.kind) {
      case OXI_OP_MATMUL: {
        const auto& a = As<oxi_matmul_args>(op);
        return a.x.dtype == OXI_DTYPE_F32 && a.y.dtype == OXI_DTYPE_F32 &&
               (IsFloat(a.w.dtype) || a.w.dtype == OXI_DTYPE_Q8_0) && a.x.cols == a.w.cols &&
               a.y.rows == a.x.rows && a.y.cols == a.w.rows;
      }
      case OXI_OP_RMS_NORM:
      case OXI_OP_UNARY:
      case OXI_OP_SCALE:
      case OXI_OP_SOFTMAX:
      case OXI_OP_BINARY:
        return sdk::AllF32(op);
      case OXI_OP_COPY: {
        const auto& a = As<oxi_copy_args>(op);
        return a.src.rows == a.dst.rows && a.src.cols == a.dst.cols &&
               (a.src.dtype == a.dst.dtype || (IsFloat(a.src.dtype) && IsFloat(a.dst.dtype)));
      }
      case OXI_OP_FILL:
        return IsFloat(As<oxi_fill_args>(op).dst.dtype);
      case OXI_OP_SET_ROWS: {
        const auto& a = As<oxi_set_rows_args>(op);
        return a.src.dtype == OXI_DTYPE_F32 && a.ids.dtype == OXI_DTYPE_I32 && IsFloat(a.dst.dtype);
      }
      case OXI_OP_GET_ROWS: {
        const auto& a = As<oxi_get_rows_args>(op);
        return IsFloat(a.table.dtype) && a.ids.dtype == OXI_DTYPE_I32 &&
               a.out.dtype == OXI_DTYPE_F32;
      }
      default:
        return false;
    }
  }

  sdk::Status Execute(const oxi_op& op) {
    const char* name = oxi_op_name(op.kind);
    if (!Supports(op)) {
      return sdk::UnimplementedError(
          sdk::StrCat(name, ": not supported by plain-cpu (", "dtypes or shapes)"));
    }
    for (int i = 0; i < op.n_tensors; ++i) OXI_RETURN_IF_ERROR(CheckExtent(op, i));
    switch (op.kind) {
      case OXI_OP_MATMUL: {
        const auto& a = As<oxi_matmul_args>(op);
        test_backends::Matmul(a, Bytes(a.x), Bytes(a.w), Bytes(a.bias), Bytes(a.y));
        return sdk::OkStatus();
      }
      case OXI_OP_RMS_NORM: {
        const auto& a = As<oxi_rms_norm_args>(op);
        test_backends::RmsNorm(a, Bytes(a.x), Bytes(a.weight), Bytes(a.out));
        return sdk::OkStatus();
      }
      case OXI_OP_UNARY: {
        const auto& a = As<oxi_unary_args>(op);
        Map(a.x, a.out, [&](float v) { return Unary(a.fn, v); });
        return sdk::OkStatus();
      }
      case OXI_OP_SCALE: {
        const auto& a = As<oxi_scale_args>(op);
        Map(a.x, a.out, [&](float v) { return v * a.scale + a.bias; });
        return sdk::OkStatus();
      }
      case OXI_OP_SOFTMAX:
        return Softmax(As<oxi_softmax_args>(op));
      case OXI_OP_BINARY:
        return BinaryOp(As<oxi_binary_args>(op));
      case OXI_OP_COPY: {
        const auto& a = As<oxi_copy_args>(op);
        const int64_t row = oxi_dtype_row_bytes(static_cast<oxi_dtype>(a.src.dtype), a.src.cols);
        for (int64_t r = 0; r < a.src.rows; ++r) {
          const uint8_t* s = Row(a.src, Bytes(a.src), r);
          uint8_t* d = Bytes(a.dst) + r * oxi_tensor_stride(&a.dst);
          if (a.src.dtype == a.dst.dtype) {
            std::memmove(d, s, row);
          } else {
            for (int64_t c = 0; c < a.src.cols; ++c)
              StoreFloat(a.dst.dtype, d, c, Element(a.src.dtype, s, c));
          }
        }
        return sdk::OkStatus();
      }
      case OXI_OP_FILL: {
        const auto& a = As<oxi_fill_args>(op);
        for (int64_t r = 0; r < a.dst.rows; ++r) {
          uint8_t* d = Bytes(a.dst) + r * oxi_tensor_stride(&a.dst);
          for (int64_t c = 0; c < a.dst.cols; ++c) StoreFloat(a.dst.dtype, d, c, a.value);
        }
        return sdk::OkStatus();
      }
      case OXI_OP_SET_ROWS:
        return SetRows(As<oxi_set_rows_args>(op));
      default:
        return GetRows(As<oxi_get_rows_args>(op));
    }
  }

 private:
  static size_t KnownSize(int kind) {
    switch (kind) {
      case OXI_OP_MATMUL:
        return sizeof(oxi_matmul_args);
      case OXI_OP_RMS_NORM:
        return sizeof(oxi_rms_norm_args);
      case OXI_OP_UNARY:
        return sizeof(oxi_unary_args);
      case OXI_OP_SCALE:
        return sizeof(oxi_scale_args);
      case OXI_OP_SOFTMAX:
        return sizeof(oxi_softmax_args);
      case OXI_OP_BINARY:
        return sizeof(oxi_binary_args);
      case OXI_OP_COPY:
        return sizeof(oxi_copy_args);
      case OXI_OP_FILL:
        return sizeof(oxi_fill_args);
      case OXI_OP_SET_ROWS:
        return sizeof(oxi_set_rows_args);
      case OXI_OP_GET_ROWS:
        return sizeof(oxi_get_rows_args);
      default:
        return sizeof(oxi_op);
    }
  }

  static uint8_t* Bytes(const oxi_tensor& t) {
    return t.buffer != nullptr ? sdk::HostData(t) : nullptr;
  }

  static sdk::Status CheckExtent(const oxi_op& op, int i) {
    const oxi_tensor& t = *oxi_op_tensor(&op, i);
    if (t.buffer == nullptr) return sdk::OkStatus();
    const int64_t extent = oxi_tensor_extent(&t);
    const uint64_t size = sdk::AsHostBuffer(t.buffer)->size;
    if (extent < 0 || t.offset > size || static_cast<uint64_t>(extent) > size - t.offset) {
      return sdk::OutOfRangeError(sdk::StrCat(oxi_op_name(op.kind), " operand ", i, ": bytes [",
                                              t.offset, ", +", extent, ") outside its buffer of ",
                                              size));
    }
    return sdk::OkStatus();
  }

  template <typename F>
  static void Map(const oxi_tensor& x, const oxi_tensor& out, F f) {
    for (int64_t r = 0; r < x.rows; ++r) {
      const float* xr = reinterpret_cast<const float*>(Row(x, Bytes(x), r));
      float* o = RowF32(out, Bytes(out), r);
      for (int64_t c = 0; c < x.cols; ++c) o[c] = f(xr[c]);
    }
  }

  static sdk::Status Softmax(const oxi_softmax_args& a) {
    for (int64_t r = 0; r < a.x.rows; ++r) {
      const float* x = reinterpret_cast<const float*>(Row(a.x, Bytes(a.x), r));
      float* o = RowF32(a.out, Bytes(a.out), r);
      float max = -INFINITY, sum = 0.0f;
      for (int64_t c = 0; c < a.x.cols; ++c) max = std::max(max, x[c] * a.scale);
      for (int64_t c = 0; c < a.x.cols; ++c) sum += (o[c] = std::exp(x[c] * a.scale - max));
      for (int64_t c = 0; c < a.x.cols; ++c) o[c] /= sum;
    }
    return sdk::OkStatus();
  }

  static sdk::Status BinaryOp(const oxi_binary_args& a) {
    if ((a.b.rows != 1 && a.b.rows != a.a.rows) || (a.b.cols != 1 && a.b.cols != a.a.cols)) {
      return sdk::InvalidArgumentError("binary: operand b does not broadcast to a");
    }
    for (int64_t r = 0; r < a.a.rows; ++r) {
      const float* x = reinterpret_cast<const float*>(Row(a.a, Bytes(a.a), r));
      const float* y = reinterpret_cast<const float*>(Row(a.b, Bytes(a.b), a.b.rows == 1 ? 0 : r));
      float* o = RowF32(a.out, Bytes(a.out), r);
      for (int64_t c = 0; c < a.a.cols; ++c) o[c] = Binary(a.fn, x[c], y[a.b.cols == 1 ? 0 : c]);
    }
    return sdk::OkStatus();
  }

  static sdk::Status SetRows(const oxi_set_rows_args& a) {
    const int32_t* ids = reinterpret_cast<const int32_t*>(Bytes(a.ids));
    for (int64_t i = 0; i < a.ids.cols; ++i) {
      if (ids[i] < 0 || ids[i] >= a.dst.rows) {
        return sdk::InvalidArgumentError(
            sdk::StrCat("set_rows: id ", ids[i], " outside [0, ", a.dst.rows, ")"));
      }
      const float* s = reinterpret_cast<const float*>(Row(a.src, Bytes(a.src), i));
      uint8_t* d = Bytes(a.dst) + ids[i] * oxi_tensor_stride(&a.dst);
      for (int64_t c = 0; c < a.dst.cols; ++c) StoreFloat(a.dst.dtype, d, c, s[c]);
    }
    return sdk::OkStatus();
  }

  static sdk::Status GetRows(const oxi_get_rows_args& a) {
    const int32_t* ids = reinterpret_cast<const int32_t*>(Bytes(a.ids));
    for (int64_t i = 0; i < a.ids.cols; ++i) {
      if (ids[i] < 0 || ids[i] >= a.table.rows) {
        return sdk::InvalidArgumentError(
            sdk::StrCat("get_rows: id ", ids[i], " outside [0, ", a.table.rows, ")"));
      }
      const uint8_t* t = Row(a.table, Bytes(a.table), ids[i]);
      float* o = RowF32(a.out, Bytes(a.out), i);
      for (int64_t c = 0; c < a.table.cols; ++c) o[c] = Element(a.table.dtype, t, c);
    }
    return sdk::OkStatus();
  }
};

}  // namespace
}  // namespace plain_cpu
}  // namespace oxinfer

OXINFER_BACKEND_PLUGIN(oxinfer::plain_cpu::PlainCpu, "plain-cpu", "1.0.0",
                       "small host-memory CPU backend for the dispatcher tests", OXI_DEVICE_CPU)
