// softmax(x * scale) over rows, and the row kernel attention shares.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "plugins/backends/cpu/buffer.h"
#include "plugins/backends/cpu/op_table.h"
#include "plugins/backends/cpu/runtime.h"
#include "plugins/backends/cpu/validate.h"
#include "plugins/backends/cpu/vec.h"

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {

void SoftmaxRow(float* x, int64_t n, float scale) {
  float mx = -std::numeric_limits<float>::infinity();
  for (int64_t i = 0; i < n; ++i) {
    x[i] *= scale;
    mx = std::max(mx, x[i]);
  }
  if (std::isinf(mx) && mx < 0) {  // all -inf: uniform is torch's NaN; give zeros
    for (int64_t i = 0; i < n; ++i) x[i] = 0.0f;
    return;
  }
  for (int64_t i = 0; i < n; ++i) x[i] -= mx;
  ExpInPlace(x, n);
  float sum = 0.0f;
  for (int64_t i = 0; i < n; ++i) sum += x[i];
  const float inv = 1.0f / sum;
  for (int64_t i = 0; i < n; ++i) x[i] *= inv;
}

int32_t CheckSoftmax(const Report& r, const oxi_op& op) {
  const auto& a = As<oxi_softmax_args>(op);
  OXI_CPU_TRY(ExpectF32(r, "x", a.x));
  OXI_CPU_TRY(ExpectF32(r, "out", a.out));
  return ExpectSameShape(r, "out", a.out, "x", a.x);
}

int32_t RunSoftmax(const Report&, const oxi_op& op) {
  const auto& a = As<oxi_softmax_args>(op);
  const int64_t cols = a.x.cols;
  if (cols == 0) return OXI_OK;
  const bool in_place = SameView(a.x, a.out);
  Parallel(a.x.rows, std::max<int64_t>(1, 16384 / cols), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      float* o = RowPtr<float>(a.out, r);
      if (!in_place) std::memcpy(o, RowPtr<const float>(a.x, r), cols * sizeof(float));
      SoftmaxRow(o, cols, a.scale);
    }
  });
  return OXI_OK;
}

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer
