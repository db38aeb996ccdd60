// The element-wise ops on strided f32 views: unary, binary (with row and
// column broadcasting), scale and glu.
#include "plugins/backends/cpu/buffer.h"
#include "plugins/backends/cpu/op_table.h"
#include "plugins/backends/cpu/runtime.h"
#include "plugins/backends/cpu/validate.h"
#include "plugins/backends/cpu/vec.h"

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {
namespace {

constexpr int64_t kElemGrain = 32768;

using ll = long long;

int32_t CheckFn(const Report& r, int32_t fn) {
  if (fn >= OXI_UNARY_NONE && fn <= OXI_UNARY_RELU) return OXI_OK;
  return r.Fail(OXI_INVALID_ARGUMENT, "unknown function %d (oxi_unary_op)", fn);
}

template <typename F>
void BinaryRow(const float* a, const float* b, bool b_scalar, int64_t n, float* out, F f) {
  if (b_scalar) {
    const float v = b[0];
    for (int64_t j = 0; j < n; ++j) out[j] = f(a[j], v);
  } else {
    for (int64_t j = 0; j < n; ++j) out[j] = f(a[j], b[j]);
  }
}

}  // namespace

int32_t CheckUnary(const Report& r, const oxi_op& op) {
  const auto& a = As<oxi_unary_args>(op);
  OXI_CPU_TRY(CheckFn(r, a.fn));
  OXI_CPU_TRY(ExpectF32(r, "x", a.x));
  OXI_CPU_TRY(ExpectF32(r, "out", a.out));
  return ExpectSameShape(r, "out", a.out, "x", a.x);
}

int32_t RunUnary(const Report&, const oxi_op& op) {
  const auto& a = As<oxi_unary_args>(op);
  const auto fn = static_cast<oxi_unary_op>(a.fn);
  ForEachSpan(a.x.rows, a.x.cols, kElemGrain, [&](int64_t row, int64_t c0, int64_t c1) {
    UnarySpan(fn, RowPtr<const float>(a.x, row) + c0, c1 - c0, RowPtr<float>(a.out, row) + c0);
  });
  return OXI_OK;
}

int32_t CheckBinary(const Report& r, const oxi_op& op) {
  const auto& a = As<oxi_binary_args>(op);
  if (a.fn < OXI_BINARY_ADD || a.fn > OXI_BINARY_DIV) {
    return r.Fail(OXI_INVALID_ARGUMENT, "unknown function %d (oxi_binary_op)", a.fn);
  }
  OXI_CPU_TRY(ExpectF32(r, "a", a.a));
  OXI_CPU_TRY(ExpectF32(r, "b", a.b));
  OXI_CPU_TRY(ExpectF32(r, "out", a.out));
  if ((a.b.rows != 1 && a.b.rows != a.a.rows) || (a.b.cols != 1 && a.b.cols != a.a.cols)) {
    return r.Fail(OXI_INVALID_ARGUMENT,
                  "b is %lldx%lld: it broadcasts over a (%lldx%lld) with 1 or %lld rows and 1 or "
                  "%lld columns",
                  ll(a.b.rows), ll(a.b.cols), ll(a.a.rows), ll(a.a.cols), ll(a.a.rows),
                  ll(a.a.cols));
  }
  return ExpectSameShape(r, "out", a.out, "a", a.a);
}

int32_t RunBinary(const Report&, const oxi_op& op) {
  const auto& a = As<oxi_binary_args>(op);
  const bool b_row = a.b.rows == 1, b_scalar = a.b.cols == 1;
  ForEachSpan(a.a.rows, a.a.cols, kElemGrain, [&](int64_t row, int64_t c0, int64_t c1) {
    const float* x = RowPtr<const float>(a.a, row) + c0;
    const float* y = RowPtr<const float>(a.b, b_row ? 0 : row) + (b_scalar ? 0 : c0);
    float* o = RowPtr<float>(a.out, row) + c0;
    const int64_t n = c1 - c0;
    switch (a.fn) {
      case OXI_BINARY_ADD:
        BinaryRow(x, y, b_scalar, n, o, [](float u, float v) { return u + v; });
        break;
      case OXI_BINARY_SUB:
        BinaryRow(x, y, b_scalar, n, o, [](float u, float v) { return u - v; });
        break;
      case OXI_BINARY_MUL:
        BinaryRow(x, y, b_scalar, n, o, [](float u, float v) { return u * v; });
        break;
      default:
        BinaryRow(x, y, b_scalar, n, o, [](float u, float v) { return u / v; });
        break;
    }
  });
  return OXI_OK;
}

int32_t CheckScale(const Report& r, const oxi_op& op) {
  const auto& a = As<oxi_scale_args>(op);
  OXI_CPU_TRY(ExpectF32(r, "x", a.x));
  OXI_CPU_TRY(ExpectF32(r, "out", a.out));
  return ExpectSameShape(r, "out", a.out, "x", a.x);
}

int32_t RunScale(const Report&, const oxi_op& op) {
  const auto& a = As<oxi_scale_args>(op);
  const float s = a.scale, b = a.bias;
  ForEachSpan(a.x.rows, a.x.cols, kElemGrain, [&](int64_t row, int64_t c0, int64_t c1) {
    const float* x = RowPtr<const float>(a.x, row);
    float* o = RowPtr<float>(a.out, row);
    for (int64_t i = c0; i < c1; ++i) o[i] = x[i] * s + b;
  });
  return OXI_OK;
}

int32_t CheckClamp(const Report& r, const oxi_op& op) {
  const auto& a = As<oxi_clamp_args>(op);
  OXI_CPU_TRY(ExpectF32(r, "x", a.x));
  OXI_CPU_TRY(ExpectF32(r, "out", a.out));
  if (a.lo > a.hi) return r.Fail(OXI_INVALID_ARGUMENT, "lo %g above hi %g", a.lo, a.hi);
  return ExpectSameShape(r, "out", a.out, "x", a.x);
}

int32_t RunClamp(const Report&, const oxi_op& op) {
  const auto& a = As<oxi_clamp_args>(op);
  const float lo = a.lo, hi = a.hi;
  ForEachSpan(a.x.rows, a.x.cols, kElemGrain, [&](int64_t row, int64_t c0, int64_t c1) {
    const float* x = RowPtr<const float>(a.x, row);
    float* o = RowPtr<float>(a.out, row);
    for (int64_t i = c0; i < c1; ++i) {
      const float v = x[i];  // NaN compares false and passes through, as in torch
      o[i] = v < lo ? lo : (v > hi ? hi : v);
    }
  });
  return OXI_OK;
}

int32_t CheckGlu(const Report& r, const oxi_op& op) {
  const auto& a = As<oxi_glu_args>(op);
  OXI_CPU_TRY(CheckFn(r, a.act));
  OXI_CPU_TRY(ExpectF32(r, "gate", a.gate));
  OXI_CPU_TRY(ExpectF32(r, "up", a.up));
  OXI_CPU_TRY(ExpectF32(r, "out", a.out));
  OXI_CPU_TRY(ExpectSameShape(r, "up", a.up, "gate", a.gate));
  return ExpectSameShape(r, "out", a.out, "gate", a.gate);
}

int32_t RunGlu(const Report&, const oxi_op& op) {
  const auto& a = As<oxi_glu_args>(op);
  const auto fn = static_cast<oxi_unary_op>(a.act);
  ForEachSpan(a.gate.rows, a.gate.cols, kElemGrain, [&](int64_t row, int64_t c0, int64_t c1) {
    GluSpan(fn, RowPtr<const float>(a.gate, row) + c0, RowPtr<const float>(a.up, row) + c0, c1 - c0,
            RowPtr<float>(a.out, row) + c0);
  });
  return OXI_OK;
}

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer
