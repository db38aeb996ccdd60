// The gated delta rule (Gated DeltaNet), recurrent (decode) and chunked
// (prefill). The recurrent form keeps the float operation order the Qwen 3.5
// plugin had (its loops over v_dim are element-wise and vectorise without
// reordering; -ffp-contract=off keeps a * b + c unfused); the chunked form is
// small GEMMs, held to the recurrence by the op tests.
#include <algorithm>
#include <cmath>

#include "plugins/backends/cpu/buffer.h"
#include "plugins/backends/cpu/op_table.h"
#include "plugins/backends/cpu/runtime.h"
#include "plugins/backends/cpu/small_gemm.h"
#include "plugins/backends/cpu/validate.h"
#include "plugins/backends/cpu/vec.h"

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

// Chunk by chunk, C tokens per chunk, in the WY (UT-transform) form that
// transformers' torch_chunk_gated_delta_rule, vLLM's and llama.cpp's chunked
// kernels use, with every product a small GEMM:
//   D[i][j] = exp(cum_i - cum_j) (j <= i), A = strict_lower((k_beta K^T) * D)
//   T = (I + A)^-1 by forward substitution on the C x C matrix (C^3 / 6)
//   U = T v_beta, W = T (k_beta * exp(cum))
//   v_new = U - W S;  out = (q * exp(cum)) S + lower((Q K^T) * D) v_new
//   S = exp(cum_last) S + (K * exp(cum_last - cum))^T v_new
// The sums are float FMAs in their own order: within the op tests' 2e-5 of
// the recurrence and the fixtures' 1e-4 of transformers.
void Chunked(const Delta& d, int64_t n, int64_t C) {
  const int64_t dk = d.dk, dv = d.dv, cc = C;
  const int64_t ldo = Ld(d.a->out);
  OverHeads(d.nv, n * d.nv * (C * (dk + dv) + 4 * dk * dv), [&](int64_t h0, int64_t h1) {
    const int64_t floats = 2 * C + 4 * C * dk + 2 * dk * C + 3 * C * dv + 3 * C * C + 64;
    float* cum = static_cast<float*>(Scratch(kScratchOp, floats * sizeof(float)));
    float* ek = cum + C;
    float* qc = ek + C + 8;  // q, then q * exp(cum)
    float* kb = qc + C * dk;
    float* dkb = kb + C * dk;
    float* w = dkb + C * dk;
    float* kt = w + C * dk;  // K^T [dk][C]
    float* kdt = kt + dk * C;
    float* vb = kdt + dk * C;
    float* u = vb + C * dv;
    float* vnew = u + C * dv;
    float* kk = vnew + C * dv;  // k_beta K^T, then A
    float* intra = kk + C * C;
    float* tm = intra + C * C;
    for (int64_t h = h0; h < h1; ++h) {
      float* S = d.S(h);
      const int64_t hk = h / d.group;
      for (int64_t c0 = 0; c0 < n; c0 += C) {
        const int64_t L = std::min(C, n - c0);
        float run = 0.0f;
        for (int64_t i = 0; i < L; ++i) {
          run += d.G(c0 + i, h);
          cum[i] = run;
        }
        const float last = cum[L - 1];
        for (int64_t i = 0; i < L; ++i) {
          const float b = d.Beta(c0 + i, h);
          const float ec = std::exp(cum[i]);
          const float* qi = d.Q(c0 + i, hk);
          const float* ki = d.K(c0 + i, hk);
          const float* vi = d.V(c0 + i, h);
          std::copy(qi, qi + dk, qc + i * dk);
          for (int64_t x = 0; x < dk; ++x) {
            kb[i * dk + x] = ki[x] * b;
            dkb[i * dk + x] = kb[i * dk + x] * ec;
          }
          for (int64_t x = 0; x < dv; ++x) vb[i * dv + x] = vi[x] * b;
          ek[i] = std::exp(last - cum[i]);
        }
        for (int64_t i = 0; i < L; ++i) Transpose(d.K(c0 + i, hk), dk, 1, dk, kt + i, cc);
        // The lower triangles of k_beta K^T and Q K^T, 8 rows at a time.
        for (int64_t i0 = 0; i0 < L; i0 += 8) {
          const int64_t r = std::min<int64_t>(8, L - i0), cols = i0 + r;
          SmallGemm(r, cols, dk, kb + i0 * dk, dk, kt, cc, kk + i0 * cc, cc, false);
          SmallGemm(r, cols, dk, qc + i0 * dk, dk, kt, cc, intra + i0 * cc, cc, false);
        }
        // Times the decay D; T = (I + A)^-1 row by row: T_i = e_i - sum_m<i A_im T_m.
        for (int64_t i = 0; i < L; ++i) {
          float* e = tm + i * cc;  // D's row, for the moment
          for (int64_t j = 0; j <= i; ++j) e[j] = cum[i] - cum[j];
          ExpInPlace(e, i + 1);
          float* ki = kk + i * cc;
          float* qi = intra + i * cc;
          for (int64_t j = 0; j <= i; ++j) {
            ki[j] *= e[j];
            qi[j] *= e[j];
          }
          std::fill(qi + i + 1, qi + L, 0.0f);
          std::fill(e, e + L, 0.0f);
          e[i] = 1.0f;
          for (int64_t m = 0; m < i; ++m) Axpy(-ki[m], tm + m * cc, m + 1, e);
        }
        SmallGemm(L, dv, L, tm, cc, vb, dv, u, dv, false, 0);
        SmallGemm(L, dk, L, tm, cc, dkb, dk, w, dk, false, 0);
        SmallGemm(L, dv, dk, w, dk, S, dv, vnew, dv, false);
        for (int64_t e = 0; e < L * dv; ++e) vnew[e] = u[e] - vnew[e];
        for (int64_t i = 0; i < L; ++i) {
          const float eq = std::exp(cum[i]);
          for (int64_t x = 0; x < dk; ++x) qc[i * dk + x] *= eq;
        }
        float* out = d.Out(c0, h);
        SmallGemm(L, dv, dk, qc, dk, S, dv, out, ldo, false);
        SmallGemm(L, dv, L, intra, cc, vnew, dv, out, ldo, true, 0);
        for (int64_t y = 0; y < dk; ++y) {
          for (int64_t i = 0; i < L; ++i) kdt[y * cc + i] = kt[y * cc + i] * ek[i];
        }
        const float chunk_decay = std::exp(last);
        for (int64_t e = 0; e < dk * dv; ++e) S[e] *= chunk_decay;
        SmallGemm(dk, dv, L, kdt, cc, vnew, dv, S, dv, true);
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
