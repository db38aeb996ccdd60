// Banded self-attention with relative-position logits (ops.h
// oxi_local_attention_args): per query row and head, the visible keys'
// scores (content plus relative term, scaled, softcapped), a softmax, and the
// weighted sum of their value rows. The band is a few dozen keys, so each
// (row, head) pair is one small independent task.
#include <algorithm>
#include <cmath>

#include "plugins/backends/cpu/buffer.h"
#include "plugins/backends/cpu/op_table.h"
#include "plugins/backends/cpu/runtime.h"
#include "plugins/backends/cpu/validate.h"
#include "plugins/backends/cpu/vec.h"

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {

int32_t CheckLocalAttention(const Report& r, const oxi_op& op) {
  const auto& a = As<oxi_local_attention_args>(op);
  OXI_CPU_TRY(ExpectF32(r, "q", a.q));
  OXI_CPU_TRY(ExpectF32(r, "k", a.k));
  OXI_CPU_TRY(ExpectF32(r, "v", a.v));
  OXI_CPU_TRY(ExpectF32(r, "out", a.out));
  if (a.n_heads <= 0 || a.head_dim <= 0) {
    return r.Fail(OXI_INVALID_ARGUMENT, "n_heads %d, head_dim %d: both must be positive", a.n_heads,
                  a.head_dim);
  }
  if (a.left < 0 || a.right < 0) {
    return r.Fail(OXI_INVALID_ARGUMENT, "left %d, right %d: the band sides must be >= 0", a.left,
                  a.right);
  }
  if (!(a.softcap >= 0.0f) || !std::isfinite(a.softcap) || !std::isfinite(a.scale)) {
    return r.Fail(OXI_INVALID_ARGUMENT, "scale %g, softcap %g: finite, softcap >= 0",
                  static_cast<double>(a.scale), static_cast<double>(a.softcap));
  }
  const int64_t width = static_cast<int64_t>(a.n_heads) * a.head_dim, n = a.q.rows;
  OXI_CPU_TRY(ExpectShape(r, "q", a.q, n, width, "n_heads * head_dim columns"));
  OXI_CPU_TRY(ExpectShape(r, "k", a.k, n, width, "one row per query, q's columns"));
  OXI_CPU_TRY(ExpectShape(r, "v", a.v, n, width, "one row per query, q's columns"));
  if (a.rel.buffer != nullptr) {
    OXI_CPU_TRY(ExpectF32(r, "rel", a.rel));
    OXI_CPU_TRY(ExpectShape(r, "rel", a.rel, a.rel.rows, width, "q's columns"));
  }
  return ExpectShape(r, "out", a.out, n, width, "q's shape");
}

int32_t RunLocalAttention(const Report&, const oxi_op& op) {
  const auto& a = As<oxi_local_attention_args>(op);
  const int64_t n = a.q.rows, nh = a.n_heads, hd = a.head_dim;
  const int64_t n_rel = a.rel.buffer != nullptr ? a.rel.rows : 0;
  // Keys s with 0 <= t - s < left or 0 < s - t < right.
  const int64_t after = std::max<int64_t>(a.right - 1, 0);
  const int64_t band = a.left + after;
  const float cap = a.softcap;
  auto run = [&](int64_t i0, int64_t i1) {
    float* scores = static_cast<float*>(Scratch(kScratchScores, (band + 1) * sizeof(float)));
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t t = i / nh, h = i % nh, col = h * hd;
      const float* q = RowPtr<const float>(a.q, t) + col;
      float* out = RowPtr<float>(a.out, t) + col;
      std::fill(out, out + hd, 0.0f);
      const int64_t s0 = std::max<int64_t>(a.left > 0 ? t - a.left + 1 : t + 1, 0);
      const int64_t s1 = std::min<int64_t>(t + after, n - 1);
      if (s1 < s0) continue;  // no visible key: zeros
      for (int64_t s = s0; s <= s1; ++s) {
        float z = Dot(q, RowPtr<const float>(a.k, s) + col, hd);
        const int64_t c = a.rel_offset + s - t;
        if (c >= 0 && c < n_rel) z += Dot(q, RowPtr<const float>(a.rel, c) + col, hd);
        z *= a.scale;
        if (cap > 0.0f) z = std::tanh(z / cap) * cap;
        scores[s - s0] = z;
      }
      const int64_t m = s1 - s0 + 1;
      SoftmaxRow(scores, m, 1.0f);
      for (int64_t s = s0; s <= s1; ++s) {
        Axpy(scores[s - s0], RowPtr<const float>(a.v, s) + col, hd, out);
      }
    }
  };
  const int64_t cost = std::max<int64_t>(1, band * hd * 3);
  Parallel(n * nh, std::max<int64_t>(1, 32768 / cost), run);
  return OXI_OK;
}

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer
