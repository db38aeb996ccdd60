// Row movement: get_rows (an embedding lookup), set_rows (a KV cache
// write), fill and concat.
#include <algorithm>
#include <cstring>

#include "plugins/backends/cpu/buffer.h"
#include "plugins/backends/cpu/op_table.h"
#include "plugins/backends/cpu/rows.h"
#include "plugins/backends/cpu/runtime.h"
#include "plugins/backends/cpu/validate.h"

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {
namespace {

using ll = long long;

int32_t CheckIds(const Report& r, const oxi_tensor& ids, int64_t n_rows, const char* of) {
  const int32_t* id = RowPtr<const int32_t>(ids, 0);
  for (int64_t i = 0; i < ids.cols * ids.rows; ++i) {
    if (id[i] < 0 || id[i] >= n_rows) {
      return r.Fail(OXI_INVALID_ARGUMENT, "ids[%lld] = %d is outside the %lld rows of %s", ll(i),
                    id[i], ll(n_rows), of);
    }
  }
  return OXI_OK;
}

}  // namespace

int32_t CheckGetRows(const Report& r, const oxi_op& op) {
  const auto& a = As<oxi_get_rows_args>(op);
  if (!IsWeightType(TypeOf(a.table))) {
    return r.Fail(OXI_INVALID_ARGUMENT, "table is %s; get_rows reads the types matmul takes",
                  TypeName(a.table));
  }
  OXI_CPU_TRY(ExpectIndexVector(r, "ids", a.ids, a.out.rows));
  OXI_CPU_TRY(ExpectF32(r, "out", a.out));
  if (a.out.cols != a.table.cols) {
    return r.Fail(OXI_INVALID_ARGUMENT, "out has %lld columns, table has %lld", ll(a.out.cols),
                  ll(a.table.cols));
  }
  return OXI_OK;
}

int32_t RunGetRows(const Report& r, const oxi_op& op) {
  const auto& a = As<oxi_get_rows_args>(op);
  const int64_t n = a.out.rows, k = a.table.cols;
  if (n == 0 || k == 0) return OXI_OK;
  OXI_CPU_TRY(CheckIds(r, a.ids, a.table.rows, "table"));
  const int32_t* ids = RowPtr<const int32_t>(a.ids, 0);
  const uint8_t* table = Data(a.table);
  const oxi_dtype t = TypeOf(a.table);
  const int64_t stride = oxi_tensor_stride(&a.table);
  Parallel(n, std::max<int64_t>(1, 16384 / k), [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      WeightRowToF32(table, t, k, stride, ids[i], 0, k, RowPtr<float>(a.out, i));
    }
  });
  return OXI_OK;
}

int32_t CheckSetRows(const Report& r, const oxi_op& op) {
  const auto& a = As<oxi_set_rows_args>(op);
  OXI_CPU_TRY(ExpectF32(r, "src", a.src));
  OXI_CPU_TRY(ExpectIndexVector(r, "ids", a.ids, a.src.rows));
  if (!IsFloatType(TypeOf(a.dst))) {
    return r.Fail(OXI_INVALID_ARGUMENT, "dst is %s, not f32, f16 or bf16", TypeName(a.dst));
  }
  if (a.dst.cols != a.src.cols) {
    return r.Fail(OXI_INVALID_ARGUMENT, "dst has %lld columns, src has %lld", ll(a.dst.cols),
                  ll(a.src.cols));
  }
  return OXI_OK;
}

int32_t RunSetRows(const Report& r, const oxi_op& op) {
  const auto& a = As<oxi_set_rows_args>(op);
  const int64_t n = a.src.rows, k = a.src.cols;
  if (n == 0 || k == 0) return OXI_OK;
  OXI_CPU_TRY(CheckIds(r, a.ids, a.dst.rows, "dst"));
  const int32_t* ids = RowPtr<const int32_t>(a.ids, 0);
  // In order, so that of repeated ids the last row wins.
  for (int64_t i = 0; i < n; ++i) {
    RowFromF32(RowPtr<const float>(a.src, i), k, TypeOf(a.dst), RowPtr<uint8_t>(a.dst, ids[i]));
  }
  return OXI_OK;
}

int32_t CheckFill(const Report& r, const oxi_op& op) {
  const auto& a = As<oxi_fill_args>(op);
  const oxi_dtype t = TypeOf(a.dst);
  if (!IsFloatType(t) && t != OXI_DTYPE_I32) {
    return r.Fail(OXI_INVALID_ARGUMENT, "dst is %s, not f32, f16, bf16 or i32", TypeName(a.dst));
  }
  if (t == OXI_DTYPE_I32 && !(a.value >= -2147483648.0f && a.value < 2147483648.0f)) {
    return r.Fail(OXI_INVALID_ARGUMENT, "value %g is not an i32", static_cast<double>(a.value));
  }
  return OXI_OK;
}

int32_t RunFill(const Report&, const oxi_op& op) {
  const auto& a = As<oxi_fill_args>(op);
  const int64_t cols = a.dst.cols;
  if (a.dst.rows == 0 || cols == 0) return OXI_OK;
  // One row of the value's bytes, then copies of it.
  uint8_t* first = RowPtr<uint8_t>(a.dst, 0);
  switch (TypeOf(a.dst)) {
    case OXI_DTYPE_F32:
      std::fill_n(reinterpret_cast<float*>(first), cols, a.value);
      break;
    case OXI_DTYPE_I32:
      std::fill_n(reinterpret_cast<int32_t*>(first), cols, static_cast<int32_t>(a.value));
      break;
    case OXI_DTYPE_F16:
      std::fill_n(reinterpret_cast<uint16_t*>(first), cols, oxi_f32_to_f16(a.value));
      break;
    default:
      std::fill_n(reinterpret_cast<uint16_t*>(first), cols, oxi_f32_to_bf16(a.value));
      break;
  }
  const size_t row = static_cast<size_t>(oxi_dtype_row_bytes(TypeOf(a.dst), cols));
  Parallel(a.dst.rows - 1, std::max<int64_t>(1, 65536 / static_cast<int64_t>(row)),
           [&](int64_t r0, int64_t r1) {
             for (int64_t i = r0; i < r1; ++i)
               std::memcpy(RowPtr<uint8_t>(a.dst, i + 1), first, row);
           });
  return OXI_OK;
}

int32_t CheckConcat(const Report& r, const oxi_op& op) {
  const auto& a = As<oxi_concat_args>(op);
  if (a.a.dtype != a.b.dtype || a.a.dtype != a.out.dtype) {
    return r.Fail(OXI_INVALID_ARGUMENT, "a is %s, b %s, out %s: one dtype throughout",
                  TypeName(a.a), TypeName(a.b), TypeName(a.out));
  }
  if (IsX8(TypeOf(a.a))) {
    return r.Fail(OXI_INVALID_ARGUMENT, "%s rows are interleaved: no columns to join",
                  TypeName(a.a));
  }
  if (a.b.rows != a.a.rows) {
    return r.Fail(OXI_INVALID_ARGUMENT, "a has %lld rows, b has %lld", ll(a.a.rows), ll(a.b.rows));
  }
  return ExpectShape(r, "out", a.out, a.a.rows, a.a.cols + a.b.cols, "a's columns, then b's");
}

int32_t RunConcat(const Report&, const oxi_op& op) {
  const auto& a = As<oxi_concat_args>(op);
  const oxi_dtype t = TypeOf(a.a);
  const size_t ra = static_cast<size_t>(oxi_dtype_row_bytes(t, a.a.cols));
  const size_t rb = static_cast<size_t>(oxi_dtype_row_bytes(t, a.b.cols));
  const int64_t grain = std::max<int64_t>(1, 65536 / static_cast<int64_t>(ra + rb + 1));
  Parallel(a.a.rows, grain, [&](int64_t r0, int64_t r1) {
    for (int64_t i = r0; i < r1; ++i) {
      uint8_t* o = RowPtr<uint8_t>(a.out, i);
      std::memcpy(o, RowPtr<const uint8_t>(a.a, i), ra);
      std::memcpy(o + ra, RowPtr<const uint8_t>(a.b, i), rb);
    }
  });
  return OXI_OK;
}

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer
