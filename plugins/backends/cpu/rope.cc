// Rotary embedding, rotate-half pairing, on strided views (in place or not).
#include <cmath>
#include <cstring>

#include "plugins/backends/cpu/buffer.h"
#include "plugins/backends/cpu/op_table.h"
#include "plugins/backends/cpu/runtime.h"
#include "plugins/backends/cpu/validate.h"

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {

int32_t CheckRope(const Report& r, const oxi_op& op) {
  const auto& a = As<oxi_rope_args>(op);
  OXI_CPU_TRY(ExpectF32(r, "x", a.x));
  OXI_CPU_TRY(ExpectF32(r, "out", a.out));
  OXI_CPU_TRY(ExpectSameShape(r, "out", a.out, "x", a.x));
  if (a.n_heads <= 0 || a.head_dim <= 0 || a.rot_dim < 0 || a.rot_dim > a.head_dim ||
      a.rot_dim % 2 != 0) {
    return r.Fail(OXI_INVALID_ARGUMENT,
                  "n_heads %d, head_dim %d, rot_dim %d: rot_dim must be even and within head_dim",
                  a.n_heads, a.head_dim, a.rot_dim);
  }
  if (a.x.cols != static_cast<int64_t>(a.n_heads) * a.head_dim) {
    return r.Fail(OXI_INVALID_ARGUMENT, "x has %lld columns, not n_heads %d x head_dim %d",
                  static_cast<long long>(a.x.cols), a.n_heads, a.head_dim);
  }
  OXI_CPU_TRY(ExpectIndexVector(r, "pos", a.pos, a.x.rows));
  OXI_CPU_TRY(ExpectF32(r, "inv_freq", a.inv_freq));
  return ExpectShape(r, "inv_freq", a.inv_freq, 1, a.rot_dim / 2, "rot_dim / 2 frequencies");
}

int32_t RunRope(const Report&, const oxi_op& op) {
  const auto& a = As<oxi_rope_args>(op);
  const int32_t half = a.rot_dim / 2, hd = a.head_dim;
  const int64_t cols = a.x.cols;
  const bool in_place = SameView(a.x, a.out);
  const int32_t* pos = RowPtr<const int32_t>(a.pos, 0);
  const float* inv_freq = half > 0 ? RowPtr<const float>(a.inv_freq, 0) : nullptr;
  Parallel(a.x.rows, 1, [&](int64_t t0, int64_t t1) {
    float* cs = static_cast<float*>(Scratch(kScratchScores, (2 * half + 1) * sizeof(float)));
    float* sn = cs + half;
    for (int64_t t = t0; t < t1; ++t) {
      float* o = RowPtr<float>(a.out, t);
      if (!in_place) std::memcpy(o, RowPtr<const float>(a.x, t), cols * sizeof(float));
      if (half == 0) continue;
      for (int32_t i = 0; i < half; ++i) {
        const float angle = static_cast<float>(pos[t]) * inv_freq[i];
        cs[i] = std::cos(angle);
        sn[i] = std::sin(angle);
      }
      for (int32_t h = 0; h < a.n_heads; ++h) {
        float* v = o + static_cast<int64_t>(h) * hd;
        for (int32_t i = 0; i < half; ++i) {
          const float x0 = v[i], x1 = v[i + half];
          v[i] = x0 * cs[i] - x1 * sn[i];
          v[i + half] = x1 * cs[i] + x0 * sn[i];
        }
      }
    }
  });
  return OXI_OK;
}

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer
