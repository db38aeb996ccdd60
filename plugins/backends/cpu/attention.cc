// Attention: the checks, and the general kernel. Per query row and KV head,
// the query heads that share it (GQA) are processed together, so each K and
// V row is read once per group: visible slots listed, scores for them, a
// softmax, then the weighted sum of V rows held in registers.
#include "plugins/backends/cpu/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "plugins/backends/cpu/buffer.h"
#include "plugins/backends/cpu/op_table.h"
#include "plugins/backends/cpu/rows.h"
#include "plugins/backends/cpu/runtime.h"
#include "plugins/backends/cpu/simd.h"
#include "plugins/backends/cpu/validate.h"
#include "plugins/backends/cpu/vec.h"

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {
namespace {

using ll = long long;

// From this many queries (a prefill), the blocked path of attention_blocked.cc.
constexpr int64_t kBlockedMinQueries = 16;

// K and V rows as f32, bf16 or f16 (T: the dtype), 8 lanes or one at a time.
template <int T>
struct Kv {
  using E = typename std::conditional<T == OXI_DTYPE_F32, float, uint16_t>::type;
  static float One(const E* p, int64_t i) {
    if constexpr (T == OXI_DTYPE_F32) {
      return p[i];
    } else if constexpr (T == OXI_DTYPE_BF16) {
      return oxi_bf16_to_f32(p[i]);
    } else {
      return oxi_f16_to_f32(p[i]);
    }
  }
#if OXI_KERNELS_X86
  static __m256 Eight(const E* p) {
    if constexpr (T == OXI_DTYPE_F32) {
      return _mm256_loadu_ps(p);
    } else if constexpr (T == OXI_DTYPE_BF16) {
      return LoadBf16x8(p);
    } else {
      return LoadF16x8(p);
    }
  }
#endif
};

// out[g * ldo] = dot(q + g * ldq, k) for g < nq: K rows are read once for all
// the query heads that share them.
template <int T>
void MultiDot(const float* q, int64_t ldq, int32_t nq, const typename Kv<T>::E* k, int64_t n,
              float* out, int64_t ldo) {
  int32_t g = 0;
#if OXI_KERNELS_X86
  for (; g + 4 <= nq; g += 4) {
    __m256 acc[4];
    for (int r = 0; r < 4; ++r) acc[r] = _mm256_setzero_ps();
    int64_t d = 0;
    for (; d + 8 <= n; d += 8) {
      const __m256 kv = Kv<T>::Eight(k + d);
#pragma GCC unroll 4
      for (int r = 0; r < 4; ++r) {
        acc[r] = _mm256_fmadd_ps(_mm256_loadu_ps(q + (g + r) * ldq + d), kv, acc[r]);
      }
    }
    for (int r = 0; r < 4; ++r) {
      float s = Hsum(acc[r]);
      for (int64_t e = d; e < n; ++e) s += q[(g + r) * ldq + e] * Kv<T>::One(k, e);
      out[(g + r) * ldo] = s;
    }
  }
#endif
  if constexpr (T == OXI_DTYPE_F32) {
    for (; g < nq; ++g) out[g * ldo] = Dot(q + g * ldq, k, n);
  } else {
    for (; g < nq; ++g) {
      const float* qg = q + g * ldq;
      int64_t d = 0;
      float s = 0.0f;
#if OXI_KERNELS_X86
      __m256 acc = _mm256_setzero_ps();
      for (; d + 8 <= n; d += 8)
        acc = _mm256_fmadd_ps(_mm256_loadu_ps(qg + d), Kv<T>::Eight(k + d), acc);
      s = Hsum(acc);
#endif
      for (; d < n; ++d) s += qg[d] * Kv<T>::One(k, d);
      out[g * ldo] = s;
    }
  }
}

// o[g][:] = sum_j p[g * ldp + j] * v[vis[j] * vs + :] for g < ng, with the
// output held in registers across all slots (x86), so V is read once per
// group and nothing is stored per slot.
template <int T>
void WeightedRows(const float* p, int64_t ldp, int32_t ng, const int32_t* vis, int64_t n_vis,
                  const typename Kv<T>::E* v, int64_t vs, int32_t vd, float* o) {
  int32_t g = 0;
#if OXI_KERNELS_X86
  for (; g + 4 <= ng; g += 4) {
    int32_t d = 0;
    for (; d + 16 <= vd; d += 16) {
      __m256 acc[4][2];
      for (int r = 0; r < 4; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
      for (int64_t j = 0; j < n_vis; ++j) {
        const auto* vr = v + vis[j] * vs + d;
        const __m256 v0 = Kv<T>::Eight(vr), v1 = Kv<T>::Eight(vr + 8);
#pragma GCC unroll 4
        for (int r = 0; r < 4; ++r) {
          const __m256 e = _mm256_broadcast_ss(p + (g + r) * ldp + j);
          acc[r][0] = _mm256_fmadd_ps(e, v0, acc[r][0]);
          acc[r][1] = _mm256_fmadd_ps(e, v1, acc[r][1]);
        }
      }
      for (int r = 0; r < 4; ++r) {
        _mm256_storeu_ps(o + (g + r) * vd + d, acc[r][0]);
        _mm256_storeu_ps(o + (g + r) * vd + d + 8, acc[r][1]);
      }
    }
    for (int64_t j = 0; j < n_vis && d < vd; ++j) {
      for (int r = 0; r < 4; ++r) {
        const float e = p[(g + r) * ldp + j];
        for (int32_t c = d; c < vd; ++c) o[(g + r) * vd + c] += e * Kv<T>::One(v, vis[j] * vs + c);
      }
    }
  }
#endif
  for (; g < ng; ++g) {
    for (int64_t j = 0; j < n_vis; ++j) {
      if constexpr (T == OXI_DTYPE_F32) {
        Axpy(p[g * ldp + j], v + vis[j] * vs, vd, o + g * vd);
      } else {
        const float e = p[g * ldp + j];
        const auto* vr = v + vis[j] * vs;
        for (int32_t c = 0; c < vd; ++c) o[g * vd + c] += e * Kv<T>::One(vr, c);
      }
    }
  }
}

const int32_t* OptionalI32(const oxi_tensor& t) {
  return Present(t) ? RowPtr<const int32_t>(t, 0) : nullptr;
}

// K and V of type T (f32, bf16 or f16).
template <int T>
void AttentionRows(const oxi_attention_args& a, const AttnShape& s) {
  using E = typename Kv<T>::E;
  const int64_t n_q = s.n_q, n_kv = s.n_kv;
  const int32_t nh = s.n_heads, nkvh = s.n_kv_heads, hd = s.head_dim, vd = s.v_head_dim;
  const int32_t group = nh / nkvh;
  const float scale = a.scale, softcap = a.softcap;
  const int32_t *q_pos = OptionalI32(a.q_pos), *kv_pos = OptionalI32(a.kv_pos);
  const int32_t *q_span = OptionalI32(a.q_span), *kv_span = OptionalI32(a.kv_span);
  const int64_t ks = Ld(a.k), vs = Ld(a.v);
  // Groups are split when there would be too few work items for the pool
  // (decode with one KV head).
  const int64_t threads = NumThreads();
  int32_t split = 1;
  while (s.batch * n_q * nkvh * split < threads && split < group) split *= 2;
  const int32_t gs = (group + split - 1) / split;
  const int64_t items = s.batch * n_q * nkvh * split;
  Parallel(items, 1, [&](int64_t w0, int64_t w1) {
    // Scores [gs][n_kv], then the visible slots' indices.
    float* sc =
        static_cast<float*>(Scratch(kScratchScores, (gs * n_kv + n_kv + 16) * sizeof(float)));
    int32_t* vis = reinterpret_cast<int32_t*>(sc + gs * n_kv + 8);
    for (int64_t w = w0; w < w1; ++w) {
      const int64_t bt = w / (nkvh * split);  // batch part * n_q + query
      const int64_t b = bt / n_q, t = bt % n_q;
      const int32_t kvh = static_cast<int32_t>(w / split % nkvh);
      const int32_t h0 = kvh * group + static_cast<int32_t>(w % split) * gs;
      const int32_t nhg = std::min(gs, kvh * group + group - h0);
      if (nhg <= 0) continue;
      const int64_t qp = q_pos != nullptr ? q_pos[t] : t;
      const int32_t span = q_span != nullptr ? q_span[t] : 0;
      const float* mask = Present(a.mask) ? RowPtr<const float>(a.mask, t) : nullptr;
      const float* qg = RowPtr<const float>(a.q, bt) + static_cast<int64_t>(h0) * hd;
      float* og = RowPtr<float>(a.out, bt) + static_cast<int64_t>(h0) * vd;
      for (int64_t e = 0; e < static_cast<int64_t>(nhg) * vd; ++e) og[e] = 0.0f;
      int64_t n_vis = 0;
      for (int64_t i = 0; i < n_kv; ++i) {
        const int64_t kp = kv_pos != nullptr ? kv_pos[i] : i;
        if (kp < 0) continue;
        const bool same_span = span != 0 && kv_span != nullptr && kv_span[i] == span;
        const bool seen =
            same_span || ((!a.causal || kp <= qp) && (a.window <= 0 || qp - kp < a.window));
        if (seen && (mask == nullptr || mask[i] != -std::numeric_limits<float>::infinity())) {
          vis[n_vis++] = static_cast<int32_t>(i);
        }
      }
      if (n_vis == 0) continue;
      // Scores, compacted to the visible slots: sc[g][j] for slot vis[j].
      const E* kb = RowPtr<const E>(a.k, b * n_kv) + static_cast<int64_t>(kvh) * hd;
      for (int64_t j = 0; j < n_vis; ++j) {
        MultiDot<T>(qg, hd, nhg, kb + vis[j] * ks, hd, sc + j, n_kv);
      }
      for (int32_t g = 0; g < nhg; ++g) {
        float* e = sc + g * n_kv;
        float mx = -std::numeric_limits<float>::infinity();
        for (int64_t j = 0; j < n_vis; ++j) {
          float v = scale * e[j];
          if (softcap > 0.0f) v = softcap * std::tanh(v / softcap);
          if (mask != nullptr) v += mask[vis[j]];
          e[j] = v;
          mx = std::max(mx, v);
        }
        for (int64_t j = 0; j < n_vis; ++j) e[j] -= mx;
        ExpInPlace(e, n_vis);
        float sum = 0.0f;
        for (int64_t j = 0; j < n_vis; ++j) sum += e[j];
        const float inv = 1.0f / sum;
        for (int64_t j = 0; j < n_vis; ++j) e[j] *= inv;
      }
      const E* vb = RowPtr<const E>(a.v, b * n_kv) + static_cast<int64_t>(kvh) * vd;
      WeightedRows<T>(sc, n_kv, nhg, vis, n_vis, vb, vs, vd, og);
    }
  });
}

int32_t CheckPositions(const Report& r, const char* name, const oxi_tensor& t, int64_t n) {
  return Present(t) ? ExpectIndexVector(r, name, t, n) : OXI_OK;
}

}  // namespace

int32_t CheckAttention(const Report& r, const oxi_op& op) {
  const auto& a = As<oxi_attention_args>(op);
  if (a.n_heads <= 0 || a.n_kv_heads <= 0 || a.head_dim <= 0 || a.v_head_dim <= 0 ||
      a.n_heads % a.n_kv_heads != 0) {
    return r.Fail(OXI_INVALID_ARGUMENT,
                  "n_heads %d, n_kv_heads %d, head_dim %d, v_head_dim %d: positive, and the "
                  "KV heads divide the heads",
                  a.n_heads, a.n_kv_heads, a.head_dim, a.v_head_dim);
  }
  if (a.batch < 0) return r.Fail(OXI_INVALID_ARGUMENT, "batch %d", a.batch);
  OXI_CPU_TRY(ExpectF32(r, "q", a.q));
  if (!IsFloatType(TypeOf(a.k)) || a.v.dtype != a.k.dtype) {
    return r.Fail(OXI_INVALID_ARGUMENT, "k is %s, v %s: one of f32, bf16, f16 for both",
                  TypeName(a.k), TypeName(a.v));
  }
  OXI_CPU_TRY(ExpectF32(r, "out", a.out));
  if (Present(a.mask)) OXI_CPU_TRY(ExpectF32(r, "mask", a.mask));
  const int64_t batch = a.batch == 0 ? 1 : a.batch;
  if (a.q.rows % batch != 0 || a.k.rows % batch != 0) {
    return r.Fail(OXI_INVALID_ARGUMENT, "batch %lld does not divide q's %lld rows and k's %lld",
                  ll(batch), ll(a.q.rows), ll(a.k.rows));
  }
  const AttnShape s = ShapeOf(a);
  if (a.q.cols != static_cast<int64_t>(a.n_heads) * a.head_dim) {
    return r.Fail(OXI_INVALID_ARGUMENT, "q has %lld columns, not n_heads %d x head_dim %d",
                  ll(a.q.cols), a.n_heads, a.head_dim);
  }
  OXI_CPU_TRY(ExpectShape(r, "k", a.k, a.k.rows, static_cast<int64_t>(a.n_kv_heads) * a.head_dim,
                          "n_kv_heads x head_dim columns"));
  OXI_CPU_TRY(ExpectShape(r, "v", a.v, a.k.rows, static_cast<int64_t>(a.n_kv_heads) * a.v_head_dim,
                          "k's rows by n_kv_heads x v_head_dim"));
  OXI_CPU_TRY(ExpectShape(r, "out", a.out, a.q.rows, static_cast<int64_t>(a.n_heads) * a.v_head_dim,
                          "q's rows by n_heads x v_head_dim"));
  OXI_CPU_TRY(CheckPositions(r, "q_pos", a.q_pos, s.n_q));
  OXI_CPU_TRY(CheckPositions(r, "kv_pos", a.kv_pos, s.n_kv));
  OXI_CPU_TRY(CheckPositions(r, "q_span", a.q_span, s.n_q));
  OXI_CPU_TRY(CheckPositions(r, "kv_span", a.kv_span, s.n_kv));
  if (Present(a.mask)) {
    OXI_CPU_TRY(ExpectShape(r, "mask", a.mask, s.n_q, s.n_kv, "n_q by n_kv, shared by the batch"));
  }
  return OXI_OK;
}

int32_t RunAttention(const Report&, const oxi_op& op) {
  const auto& a = As<oxi_attention_args>(op);
  const AttnShape s = ShapeOf(a);
  if (s.n_q == 0) return OXI_OK;
  if (s.n_q >= 16 && s.n_kv >= 16 && AllVisible(a)) {
    AttentionGemm(a, s);
  } else if (s.n_q >= kBlockedMinQueries) {
    AttentionBlocked(a, s);
  } else if (a.k.dtype == OXI_DTYPE_F32) {
    AttentionRows<OXI_DTYPE_F32>(a, s);
  } else if (a.k.dtype == OXI_DTYPE_BF16) {
    AttentionRows<OXI_DTYPE_BF16>(a, s);
  } else {
    AttentionRows<OXI_DTYPE_F16>(a, s);
  }
  return OXI_OK;
}

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer
