// The gated delta rule (Gated DeltaNet), recurrent and chunked, moved from
// the Qwen 3.5 plugin with its float operation order unchanged (its
// exactness against transformers depends on it): the loops over v_dim are
// element-wise and vectorise in the variant's ISA without reordering, and
// -ffp-contract=off keeps a * b + c unfused as the plugin had it.
#include <algorithm>
#include <cmath>

#include "plugins/backends/cpu/buffer.h"
#include "plugins/backends/cpu/op_table.h"
#include "plugins/backends/cpu/runtime.h"
#include "plugins/backends/cpu/validate.h"

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {
namespace {

struct Delta {
  const oxi_gated_delta_args* a;
  int64_t nk, nv, dk, dv, group;
  const float* Q(int64_t t, int64_t hk) const { return RowPtr<const float>(a->q, t) + hk * dk; }
  const float* K(int64_t t, int64_t hk) const { return RowPtr<const float>(a->k, t) + hk * dk; }
  const float* V(int64_t t, int64_t h) const { return RowPtr<const float>(a->v, t) + h * dv; }
  float G(int64_t t, int64_t h) const { return RowPtr<const float>(a->g, t)[h]; }
  float Beta(int64_t t, int64_t h) const { return RowPtr<const float>(a->beta, t)[h]; }
  float* S(int64_t h) const { return RowPtr<float>(a->state, h); }
  float* Out(int64_t t, int64_t h) const { return RowPtr<float>(a->out, t) + h * dv; }
};

// Over value heads, on the pool when the work is worth it.
template <typename Fn>
void OverHeads(int64_t nv, int64_t work, Fn&& fn) {
  if (work < (int64_t{1} << 16) || nv < 2) {
    fn(int64_t{0}, nv);
  } else {
    Parallel(nv, 1, fn);
  }
}

// Token by token, two passes over each head's state per token (decay with
// S^T k, then the rank-1 update with S^T q): the state is the bulk of the
// step's memory traffic. Sums over dk in float.
void Recurrent(const Delta& d, int64_t n) {
  const int64_t dk = d.dk, dv = d.dv;
  OverHeads(d.nv, 4 * n * d.nv * dk * dv, [&](int64_t h0, int64_t h1) {
    float* a = static_cast<float*>(Scratch(kScratchOp, 2 * dv * sizeof(float) + 64));
    float* dl = a + dv + 8;
    for (int64_t h = h0; h < h1; ++h) {
      float* S = d.S(h);
      const int64_t hk = h / d.group;
      for (int64_t t = 0; t < n; ++t) {
        const float* qt = d.Q(t, hk);
        const float* kt = d.K(t, hk);
        const float* vt = d.V(t, h);
        const float decay = std::exp(d.G(t, h));
        const float b = d.Beta(t, h);
        // S *= decay; kv_mem = S^T k
        std::fill(a, a + dv, 0.0f);
        for (int64_t i = 0; i < dk; ++i) {
          float* Si = S + i * dv;
          const float ki = kt[i];
          for (int64_t j = 0; j < dv; ++j) {
            Si[j] *= decay;
            a[j] += Si[j] * ki;
          }
        }
        for (int64_t j = 0; j < dv; ++j) dl[j] = (vt[j] - a[j]) * b;
        // S += k delta^T; out = S^T q
        std::fill(a, a + dv, 0.0f);
        for (int64_t i = 0; i < dk; ++i) {
          float* Si = S + i * dv;
          const float ki = kt[i], qi = qt[i];
          for (int64_t j = 0; j < dv; ++j) {
            Si[j] += ki * dl[j];
            a[j] += Si[j] * qi;
          }
        }
        std::copy(a, a + dv, d.Out(t, h));
      }
    }
  });
}

double DotD(const float* a, const float* b, int64_t n) {
  double s = 0.0;
  for (int64_t i = 0; i < n; ++i) s += static_cast<double>(a[i]) * b[i];
  return s;
}

// Chunk by chunk (the UT-transform form), C tokens per chunk.
void Chunked(const Delta& d, int64_t n, int64_t C) {
  const int64_t dk = d.dk, dv = d.dv;
  OverHeads(d.nv, n * d.nv * (C * (dk + dv) + 4 * dk * dv), [&](int64_t h0, int64_t h1) {
    float* base = static_cast<float*>(
        Scratch(kScratchOp, (C + 6 * C * dk + 3 * C * dv + 2 * C * C + 16) * sizeof(float)));
    float* cum = base;
    float* kb = cum + C;
    float* dkb = kb + C * dk;
    float* kcd = dkb + C * dk;
    float* qd = kcd + C * dk;
    float* kd = qd + C * dk;
    float* vb = kd + C * dk;
    float* newv = vb + C * dv;
    float* vnew = newv + C * dv;
    float* ut = vnew + C * dv;
    float* intra = ut + C * C;
    for (int64_t h = h0; h < h1; ++h) {
      float* S = d.S(h);
      const int64_t hk = h / d.group;
      for (int64_t c0 = 0; c0 < n; c0 += C) {
        const int64_t L = std::min(C, n - c0);
        // Cumulative log decay inside the chunk.
        float run = 0.0f;
        for (int64_t i = 0; i < L; ++i) {
          run += d.G(c0 + i, h);
          cum[i] = run;
        }
        for (int64_t i = 0; i < L; ++i) {
          const float b = d.Beta(c0 + i, h);
          const float* ki = d.K(c0 + i, hk);
          const float* vi = d.V(c0 + i, h);
          const float ec = std::exp(cum[i]);
          for (int64_t x = 0; x < dk; ++x) {
            kb[i * dk + x] = ki[x] * b;
            dkb[i * dk + x] = kb[i * dk + x] * ec;
          }
          for (int64_t x = 0; x < dv; ++x) vb[i * dv + x] = vi[x] * b;
        }
        // ut[i][j] = (k_beta_i . k_j) exp(cum_i - cum_j), intra[i][j] =
        // (q_i . k_j) exp(...), j <= i.
        for (int64_t i = 0; i < L; ++i) {
          for (int64_t j = 0; j <= i; ++j) {
            const float pd = std::exp(cum[i] - cum[j]);
            ut[i * C + j] = static_cast<float>(DotD(kb + i * dk, d.K(c0 + j, hk), dk)) * pd;
            intra[i * C + j] = static_cast<float>(DotD(d.Q(c0 + i, hk), d.K(c0 + j, hk), dk)) * pd;
          }
        }
        // Unit lower-triangular solves (forward substitution):
        // (I + strict_lower(ut)) X = rhs.
        for (int64_t i = 0; i < L; ++i) {
          float* ni = newv + i * dv;
          float* ci = kcd + i * dk;
          std::copy(vb + i * dv, vb + (i + 1) * dv, ni);
          std::copy(dkb + i * dk, dkb + (i + 1) * dk, ci);
          for (int64_t j = 0; j < i; ++j) {
            const float a = ut[i * C + j];
            const float* nj = newv + j * dv;
            const float* cj = kcd + j * dk;
            for (int64_t x = 0; x < dv; ++x) ni[x] -= a * nj[x];
            for (int64_t x = 0; x < dk; ++x) ci[x] -= a * cj[x];
          }
        }
        const float last = cum[L - 1];
        for (int64_t i = 0; i < L; ++i) {
          const float eq = std::exp(cum[i]);
          const float ek = std::exp(last - cum[i]);
          const float* qi = d.Q(c0 + i, hk);
          const float* ki = d.K(c0 + i, hk);
          for (int64_t x = 0; x < dk; ++x) {
            qd[i * dk + x] = qi[x] * eq;
            kd[i * dk + x] = ki[x] * ek;
          }
        }
        // v_new = new_values - k_cumdecay @ S; out = qd @ S + intra @ v_new.
        for (int64_t i = 0; i < L; ++i) {
          float* vn = vnew + i * dv;
          float* oi = d.Out(c0 + i, h);
          std::fill(vn, vn + dv, 0.0f);
          std::fill(oi, oi + dv, 0.0f);
          for (int64_t y = 0; y < dk; ++y) {
            const float a = kcd[i * dk + y], b = qd[i * dk + y];
            const float* Sy = S + y * dv;
            for (int64_t x = 0; x < dv; ++x) {
              vn[x] += a * Sy[x];
              oi[x] += b * Sy[x];
            }
          }
          for (int64_t x = 0; x < dv; ++x) vn[x] = newv[i * dv + x] - vn[x];
          for (int64_t j = 0; j <= i; ++j) {
            const float a = intra[i * C + j];
            const float* vj = vnew + j * dv;
            for (int64_t x = 0; x < dv; ++x) oi[x] += a * vj[x];
          }
        }
        // S = S * exp(cum_last) + kd^T v_new.
        const float chunk_decay = std::exp(last);
        for (int64_t y = 0; y < dk; ++y) {
          float* Sy = S + y * dv;
          for (int64_t x = 0; x < dv; ++x) Sy[x] *= chunk_decay;
          for (int64_t i = 0; i < L; ++i) {
            const float a = kd[i * dk + y];
            const float* vi = vnew + i * dv;
            for (int64_t x = 0; x < dv; ++x) Sy[x] += a * vi[x];
          }
        }
      }
    }
  });
}

}  // namespace

int32_t CheckGatedDelta(const Report& r, const oxi_op& op) {
  const auto& a = As<oxi_gated_delta_args>(op);
  if (a.n_k_heads <= 0 || a.n_v_heads <= 0 || a.k_dim <= 0 || a.v_dim <= 0 ||
      a.n_v_heads % a.n_k_heads != 0) {
    return r.Fail(OXI_INVALID_ARGUMENT,
                  "n_k_heads %d, n_v_heads %d, k_dim %d, v_dim %d: positive, and the key heads "
                  "divide the value heads",
                  a.n_k_heads, a.n_v_heads, a.k_dim, a.v_dim);
  }
  if (a.mode < OXI_GATED_DELTA_AUTO || a.mode > OXI_GATED_DELTA_CHUNKED || a.chunk_size < 0) {
    return r.Fail(OXI_INVALID_ARGUMENT, "mode %d, chunk_size %d", a.mode, a.chunk_size);
  }
  const char* names[] = {"q", "k", "v", "g", "beta", "state", "out"};
  for (int i = 0; i < 7; ++i) OXI_CPU_TRY(ExpectF32(r, names[i], *oxi_op_tensor(&op, i)));
  const int64_t n = a.q.rows, nk = a.n_k_heads, nv = a.n_v_heads, dk = a.k_dim, dv = a.v_dim;
  OXI_CPU_TRY(ExpectShape(r, "q", a.q, n, nk * dk, "n_k_heads x k_dim columns"));
  OXI_CPU_TRY(ExpectShape(r, "k", a.k, n, nk * dk, "q's shape"));
  OXI_CPU_TRY(ExpectShape(r, "v", a.v, n, nv * dv, "q's rows by n_v_heads x v_dim"));
  OXI_CPU_TRY(ExpectShape(r, "g", a.g, n, nv, "q's rows by n_v_heads"));
  OXI_CPU_TRY(ExpectShape(r, "beta", a.beta, n, nv, "q's rows by n_v_heads"));
  OXI_CPU_TRY(ExpectShape(r, "state", a.state, nv, dk * dv, "n_v_heads by k_dim x v_dim"));
  return ExpectShape(r, "out", a.out, n, nv * dv, "v's shape");
}

int32_t RunGatedDelta(const Report&, const oxi_op& op) {
  const auto& a = As<oxi_gated_delta_args>(op);
  const int64_t n = a.q.rows;
  if (n == 0) return OXI_OK;
  const Delta d{&a, a.n_k_heads, a.n_v_heads, a.k_dim, a.v_dim, a.n_v_heads / a.n_k_heads};
  const bool recurrent =
      a.mode == OXI_GATED_DELTA_RECURRENT || (a.mode == OXI_GATED_DELTA_AUTO && n == 1);
  if (recurrent) {
    Recurrent(d, n);
  } else {
    Chunked(d, n, a.chunk_size == 0 ? 64 : a.chunk_size);
  }
  return OXI_OK;
}

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer
