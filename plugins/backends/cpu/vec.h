// Vector primitives over float spans, shared by the ops (SIMD where the
// variant has it, the same results' reference otherwise), and the row split
// that every element-wise op parallelises with.
#ifndef OXINFER_PLUGINS_BACKENDS_CPU_VEC_H_
#define OXINFER_PLUGINS_BACKENDS_CPU_VEC_H_

#include <algorithm>
#include <cstdint>

#include "oxinfer/ops.h"
#include "plugins/backends/cpu/runtime.h"

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {

float Dot(const float* a, const float* b, int64_t n);
// y += a * x.
void Axpy(float a, const float* x, int64_t n, float* y);
void ExpInPlace(float* x, int64_t n);
// x = softmax(x * scale) in place; a row that is all -inf becomes zeros.
void SoftmaxRow(float* x, int64_t n, float scale);

// f(x) element by element (fn: oxi_unary_op, NONE included); out may be x.
void UnarySpan(oxi_unary_op fn, const float* x, int64_t n, float* out);
// out = f(gate) * up, in one pass; out may be gate or up.
void GluSpan(oxi_unary_op fn, const float* gate, const float* up, int64_t n, float* out);

// Calls f(row, c0, c1) over column spans of every row of a rows x cols
// matrix, in parallel pieces of about `grain` elements.
template <typename F>
void ForEachSpan(int64_t rows, int64_t cols, int64_t grain, F&& f) {
  if (rows <= 0 || cols <= 0) return;
  const int64_t span = std::min(cols, grain);
  const int64_t per_row = (cols + span - 1) / span;
  Parallel(rows * per_row, std::max<int64_t>(1, grain / span), [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t row = i / per_row, c0 = i % per_row * span;
      f(row, c0, std::min(cols, c0 + span));
    }
  });
}

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_BACKENDS_CPU_VEC_H_
