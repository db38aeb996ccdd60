#include "core/dispatch/check_log.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/dispatch/op_info.h"
#include "oxinfer/dtype.h"

namespace oxinfer {
namespace dispatch {
namespace {

float Element(int32_t dtype, const uint8_t* p) {
  uint16_t h;
  switch (dtype) {
    case OXI_DTYPE_F32: {
      float f;
      std::memcpy(&f, p, sizeof f);
      return f;
    }
    case OXI_DTYPE_F16:
      std::memcpy(&h, p, sizeof h);
      return oxi_f16_to_f32(h);
    default:  // BF16
      std::memcpy(&h, p, sizeof h);
      return oxi_bf16_to_f32(h);
  }
}

}  // namespace

bool IsComparable(int32_t dtype) {
  return dtype == OXI_DTYPE_F32 || dtype == OXI_DTYPE_F16 || dtype == OXI_DTYPE_BF16;
}

double RelativeError(const oxi_tensor& t, const uint8_t* a, const uint8_t* b) {
  const int64_t element = oxi_dtype_block_bytes(static_cast<oxi_dtype>(t.dtype));
  const int64_t stride = oxi_tensor_stride(&t);
  double max_diff = 0.0, max_ref = 0.0;
  for (int64_t r = 0; r < t.rows; ++r) {
    for (int64_t c = 0; c < t.cols; ++c) {
      const int64_t at = r * stride + c * element;
      const double x = Element(t.dtype, a + at), y = Element(t.dtype, b + at);
      if (!std::isfinite(x) || !std::isfinite(y)) {
        const bool same = (std::isnan(x) && std::isnan(y)) || x == y;
        if (!same) return std::numeric_limits<double>::infinity();
        continue;
      }
      max_diff = std::max(max_diff, std::fabs(x - y));
      max_ref = std::max(max_ref, std::fabs(y));
    }
  }
  return max_diff / std::max(max_ref, 1e-6);
}

void CheckLog::RecordError(int kind, double error, const oxi_op* op) {
  Entry& e = entries_[Bucket(kind)];
  if (e.checked == 0 || error > e.worst) {
    e.worst = error;
    e.worst_op = DescribeOperands(op);
  }
  ++e.checked;
}

void CheckLog::RecordFailure(int kind, const std::string& message) {
  Entry& e = entries_[Bucket(kind)];
  if (e.failed++ == 0) e.failure = message;
}

bool CheckLog::empty() const {
  for (const Entry& e : entries_) {
    if (e.checked > 0 || e.failed > 0) return false;
  }
  return true;
}

std::string CheckLog::Report(const std::string& accel, const std::string& cpu) const {
  if (empty()) return "";
  std::string out = absl::StrCat("backend check: ops run on ", accel, " recomputed on ", cpu,
                                 "; worst relative error max|a-b|/max|b| per op kind\n");
  absl::StrAppendFormat(&out, "%-17s %8s %11s  %s\n", "op", "checked", "worst", "operands");
  for (int k = 0; k < OXI_OP_KIND_COUNT; ++k) {
    const Entry& e = entries_[k];
    const char* name = k == 0 ? "other" : oxi_op_name(k);
    if (e.checked > 0) {
      absl::StrAppendFormat(&out, "%-17s %8d %11.3g  %s\n", name, e.checked, e.worst, e.worst_op);
    }
    if (e.failed > 0) {
      absl::StrAppendFormat(&out, "%-17s %8d %11s  %s\n", name, e.failed, "not checked", e.failure);
    }
  }
  return out;
}

}  // namespace dispatch
}  // namespace oxinfer
