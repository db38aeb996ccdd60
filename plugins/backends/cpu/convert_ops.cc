// convert (floats to any storage type, block types to floats, plain <-> _X8)
// and copy (same type, or between the float types).
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

// One row of k elements from type st to dt (plain types; any pair convert
// or copy accepts). tmp holds k floats.
void ConvertRow(const uint8_t* src, oxi_dtype st, uint8_t* dst, oxi_dtype dt, int64_t k,
                float* tmp) {
  if (st == dt) {
    std::memcpy(dst, src, static_cast<size_t>(oxi_dtype_row_bytes(st, k)));
  } else if (st == OXI_DTYPE_F32) {
    RowFromF32(reinterpret_cast<const float*>(src), k, dt, dst);
  } else if (dt == OXI_DTYPE_F32) {
    RowToF32(src, st, 0, k, reinterpret_cast<float*>(dst));
  } else {
    RowToF32(src, st, 0, k, tmp);
    RowFromF32(tmp, k, dt, dst);
  }
}

// Rows [8 g0, 8 g1) when either side is an _X8 form: each group's eight rows
// in plain form first, then interleaved or converted.
void ConvertGroupsX8(const oxi_tensor& s, const oxi_tensor& d, int64_t g0, int64_t g1) {
  const oxi_dtype st = TypeOf(s), dt = TypeOf(d);
  const oxi_dtype sp = oxi_dtype_plain(st), dp = oxi_dtype_plain(dt);
  const int64_t k = s.cols;
  const int64_t sb = oxi_dtype_row_bytes(st, k), db = oxi_dtype_row_bytes(dt, k);
  const int64_t pb = std::max(sb, db);
  uint8_t* plain = static_cast<uint8_t*>(Scratch(kScratchWeights, 2 * OXI_X8_ROWS * pb + 4 * k));
  uint8_t* plain2 = plain + OXI_X8_ROWS * pb;
  float* tmp = reinterpret_cast<float*>(plain2 + OXI_X8_ROWS * pb);
  for (int64_t g = g0; g < g1; ++g) {
    const uint8_t* src = RowPtr<const uint8_t>(s, g * OXI_X8_ROWS);
    int64_t ss = oxi_tensor_stride(&s);
    if (IsX8(st)) {
      DeinterleaveX8(src, sp, k, plain, sb);
      src = plain;
      ss = sb;
    }
    if (!IsX8(dt)) {
      for (int r = 0; r < OXI_X8_ROWS; ++r) {
        ConvertRow(src + r * ss, sp, RowPtr<uint8_t>(d, g * OXI_X8_ROWS + r), dt, k, tmp);
      }
      continue;
    }
    if (sp != dp) {
      for (int r = 0; r < OXI_X8_ROWS; ++r)
        ConvertRow(src + r * ss, sp, plain2 + r * db, dp, k, tmp);
      src = plain2;
      ss = db;
    }
    InterleaveX8(src, ss, dp, k, RowPtr<uint8_t>(d, g * OXI_X8_ROWS));
  }
}

void ConvertRows(const oxi_tensor& s, const oxi_tensor& d) {
  const int64_t rows = s.rows, k = s.cols;
  if (rows == 0 || k == 0) return;
  const oxi_dtype st = TypeOf(s), dt = TypeOf(d);
  if (st == dt && IsX8(st)) {  // packed: one copy
    std::memcpy(Data(d), Data(s), static_cast<size_t>(oxi_dtype_row_bytes(st, k) * rows));
    return;
  }
  if (IsX8(st) || IsX8(dt)) {
    const int64_t grain = std::max<int64_t>(1, 8192 / k);
    Parallel(rows / OXI_X8_ROWS, grain,
             [&](int64_t g0, int64_t g1) { ConvertGroupsX8(s, d, g0, g1); });
    return;
  }
  const int64_t grain = std::max<int64_t>(1, 65536 / k);
  Parallel(rows, grain, [&](int64_t r0, int64_t r1) {
    float* tmp = static_cast<float*>(Scratch(kScratchWeights, k * sizeof(float)));
    for (int64_t r = r0; r < r1; ++r) {
      ConvertRow(RowPtr<const uint8_t>(s, r), st, RowPtr<uint8_t>(d, r), dt, k, tmp);
    }
  });
}

}  // namespace

int32_t CheckConvert(const Report& r, const oxi_op& op) {
  const auto& a = As<oxi_convert_args>(op);
  const oxi_dtype st = TypeOf(a.src), dt = TypeOf(a.dst);
  const bool repack = IsBlockType(st) && oxi_dtype_plain(st) == oxi_dtype_plain(dt);
  const bool ok =
      (IsFloatType(st) && IsWeightType(dt)) || (IsBlockType(st) && IsFloatType(dt)) || repack;
  if (!ok) {
    return r.Fail(OXI_INVALID_ARGUMENT,
                  "%s to %s: convert takes floats to any weight type, block types to floats, "
                  "and plain <-> _x8",
                  TypeName(a.src), TypeName(a.dst));
  }
  return ExpectSameShape(r, "dst", a.dst, "src", a.src);
}

int32_t RunConvert(const Report&, const oxi_op& op) {
  const auto& a = As<oxi_convert_args>(op);
  ConvertRows(a.src, a.dst);
  return OXI_OK;
}

int32_t CheckCopy(const Report& r, const oxi_op& op) {
  const auto& a = As<oxi_copy_args>(op);
  const oxi_dtype st = TypeOf(a.src), dt = TypeOf(a.dst);
  if (st != dt && !(IsFloatType(st) && IsFloatType(dt))) {
    return r.Fail(OXI_INVALID_ARGUMENT,
                  "%s to %s: copy takes one type, or converts between f32, f16 and bf16",
                  TypeName(a.src), TypeName(a.dst));
  }
  return ExpectSameShape(r, "dst", a.dst, "src", a.src);
}

int32_t RunCopy(const Report&, const oxi_op& op) {
  const auto& a = As<oxi_copy_args>(op);
  ConvertRows(a.src, a.dst);
  return OXI_OK;
}

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer
