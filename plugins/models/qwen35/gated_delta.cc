#include "plugins/models/qwen35/gated_delta.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#include "oxinfer/plugin.hpp"
#include "plugins/models/qwen35/ops.h"

namespace oxinfer {
namespace qwen35 {
void CausalConv1dSilu(const oxi_host_services* host, int64_t n, int64_t channels, int64_t kernel,
                      const float* w, float* state, const float* x, float* out) {
  const int64_t hist = kernel - 1;
  ParallelIfWorth(host, channels, channels * (n + hist) * kernel,
                  [&](int64_t c0, int64_t c1, int32_t) {
                    std::vector<float> pad(static_cast<size_t>(hist + n));
                    for (int64_t c = c0; c < c1; ++c) {
                      for (int64_t j = 0; j < hist; ++j) pad[j] = state[j * channels + c];
                      for (int64_t t = 0; t < n; ++t) pad[hist + t] = x[t * channels + c];
                      const float* wc = w + c * kernel;
                      for (int64_t t = 0; t < n; ++t) {
                        double acc = 0.0;
                        for (int64_t j = 0; j < kernel; ++j)
                          acc += static_cast<double>(wc[j]) * pad[t + j];
                        const float y = static_cast<float>(acc);
                        out[t * channels + c] = y / (1.0f + std::exp(-y));
                      }
                      for (int64_t j = 0; j < hist; ++j) state[j * channels + c] = pad[n + j];
                    }
                  });
}

void L2NormRows(float* x, int64_t rows, int64_t dim, float eps, float scale) {
  for (int64_t r = 0; r < rows; ++r) {
    float* row = x + r * dim;
    double ss = 0.0;
    for (int64_t i = 0; i < dim; ++i) ss += static_cast<double>(row[i]) * row[i];
    const float inv = 1.0f / std::sqrt(static_cast<float>(ss) + eps);
    for (int64_t i = 0; i < dim; ++i) row[i] = row[i] * inv * scale;
  }
}

void GatedDeltaRecurrent(const oxi_host_services* host, const DeltaDims& d, int64_t n,
                         const float* q, const float* k, const float* v, const float* g,
                         const float* beta, float* state, float* out) {
  const int64_t nv = d.num_v_heads, dk = d.k_dim, dv = d.v_dim;
  const int64_t group = d.num_v_heads / d.num_k_heads;
  // Two passes over each head's state per token instead of four (decay with
  // S^T k, then the rank-1 update with S^T q): the state (dk x dv floats per
  // head, 1 MiB a layer on the 0.8B) is the bulk of this step's memory
  // traffic. Sums over dk in float: 128 terms, far inside the 1e-4 budget.
  ParallelIfWorth(host, nv, 4 * n * nv * dk * dv, [&](int64_t h0, int64_t h1, int32_t) {
    std::vector<float> acc(static_cast<size_t>(dv));
    std::vector<float> delta(static_cast<size_t>(dv));
    float* a = acc.data();
    float* dl = delta.data();
    for (int64_t h = h0; h < h1; ++h) {
      float* S = state + h * dk * dv;
      const int64_t hk = h / group;
      for (int64_t t = 0; t < n; ++t) {
        const float* qt = q + (t * d.num_k_heads + hk) * dk;
        const float* kt = k + (t * d.num_k_heads + hk) * dk;
        const float* vt = v + (t * nv + h) * dv;
        const float decay = std::exp(g[t * nv + h]);
        const float b = beta[t * nv + h];
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
        std::copy(a, a + dv, out + (t * nv + h) * dv);
      }
    }
  });
}

namespace {

inline double Dot(const float* a, const float* b, int64_t n) {
  double s = 0.0;
  for (int64_t i = 0; i < n; ++i) s += static_cast<double>(a[i]) * b[i];
  return s;
}

}  // namespace

void GatedDeltaChunked(const oxi_host_services* host, const DeltaDims& d, int64_t n,
                       int64_t chunk_size, const float* q, const float* k, const float* v,
                       const float* g, const float* beta, float* state, float* out) {
  const int64_t nv = d.num_v_heads, nk = d.num_k_heads, dk = d.k_dim, dv = d.v_dim;
  const int64_t group = nv / nk;
  const int64_t C = chunk_size;
  ParallelIfWorth(
      host, nv, n * nv * (C * (dk + dv) + 4 * dk * dv), [&](int64_t h0, int64_t h1, int32_t) {
        std::vector<float> cum(C), kb(C * dk), vb(C * dv), dkb(C * dk), ut(C * C), intra(C * C);
        std::vector<float> newv(C * dv), kcd(C * dk), vnew(C * dv), qd(C * dk), kd(C * dk);
        for (int64_t h = h0; h < h1; ++h) {
          float* S = state + h * dk * dv;
          const int64_t hk = h / group;
          auto Q = [&](int64_t t) { return q + (t * nk + hk) * dk; };
          auto K = [&](int64_t t) { return k + (t * nk + hk) * dk; };
          for (int64_t c0 = 0; c0 < n; c0 += C) {
            const int64_t L = std::min(C, n - c0);
            // Cumulative log decay inside the chunk.
            float run = 0.0f;
            for (int64_t i = 0; i < L; ++i) {
              run += g[(c0 + i) * nv + h];
              cum[i] = run;
            }
            for (int64_t i = 0; i < L; ++i) {
              const float b = beta[(c0 + i) * nv + h];
              const float* ki = K(c0 + i);
              const float* vi = v + ((c0 + i) * nv + h) * dv;
              const float ec = std::exp(cum[i]);
              for (int64_t x = 0; x < dk; ++x) {
                kb[i * dk + x] = ki[x] * b;
                dkb[i * dk + x] = kb[i * dk + x] * ec;
              }
              for (int64_t x = 0; x < dv; ++x) vb[i * dv + x] = vi[x] * b;
            }
            // ut[i][j] = (k_beta_i . k_j) exp(cum_i - cum_j), intra[i][j] = (q_i . k_j) exp(...), j
            // <= i.
            for (int64_t i = 0; i < L; ++i) {
              for (int64_t j = 0; j <= i; ++j) {
                const float pd = std::exp(cum[i] - cum[j]);
                ut[i * C + j] = static_cast<float>(Dot(kb.data() + i * dk, K(c0 + j), dk)) * pd;
                intra[i * C + j] = static_cast<float>(Dot(Q(c0 + i), K(c0 + j), dk)) * pd;
              }
            }
            // Unit lower-triangular solves (forward substitution): (I + strict_lower(ut)) X = rhs.
            for (int64_t i = 0; i < L; ++i) {
              float* ni = newv.data() + i * dv;
              float* ci = kcd.data() + i * dk;
              std::copy(vb.begin() + i * dv, vb.begin() + (i + 1) * dv, ni);
              std::copy(dkb.begin() + i * dk, dkb.begin() + (i + 1) * dk, ci);
              for (int64_t j = 0; j < i; ++j) {
                const float a = ut[i * C + j];
                const float* nj = newv.data() + j * dv;
                const float* cj = kcd.data() + j * dk;
                for (int64_t x = 0; x < dv; ++x) ni[x] -= a * nj[x];
                for (int64_t x = 0; x < dk; ++x) ci[x] -= a * cj[x];
              }
            }
            const float last = cum[L - 1];
            for (int64_t i = 0; i < L; ++i) {
              const float eq = std::exp(cum[i]);
              const float ek = std::exp(last - cum[i]);
              const float* qi = Q(c0 + i);
              const float* ki = K(c0 + i);
              for (int64_t x = 0; x < dk; ++x) {
                qd[i * dk + x] = qi[x] * eq;
                kd[i * dk + x] = ki[x] * ek;
              }
            }
            // v_new = new_values - k_cumdecay @ S; out = qd @ S + intra @ v_new.
            // Row-times-matrix loops run over contiguous rows of S (vectorisable).
            for (int64_t i = 0; i < L; ++i) {
              float* vn = vnew.data() + i * dv;
              float* oi = out + ((c0 + i) * nv + h) * dv;
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
                const float* vj = vnew.data() + j * dv;
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
                const float* vi = vnew.data() + i * dv;
                for (int64_t x = 0; x < dv; ++x) Sy[x] += a * vi[x];
              }
            }
          }
        }
      });
}

}  // namespace qwen35
}  // namespace oxinfer
