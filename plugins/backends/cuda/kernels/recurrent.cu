// Qwen 3.5's DeltaNet pieces: the causal depthwise conv1d with its state, and
// the gated delta rule in its recurrent form (token by token; the chunked
// form gives the same result to rounding, as ops.h says, so every mode runs
// this one). The state stays on the device between calls.
#include "plugins/backends/cuda/kernels/common.cuh"

using namespace oxinfer::cuda;

// xp = the state's K-1 rows, then x's n rows.
__device__ __forceinline__ float Xp(const Conv1dParams& p, int64_t r, int64_t c, int64_t km1) {
  return r < km1 ? RowF(p.state, r)[c] : RowF(p.x, r - km1)[c];
}

// out[t][c] = act(sum_j w[c][j] xp[t + j][c]); the new state (xp's last K-1
// rows) goes to scratch, copied over the state by ox_conv1d_state after.
extern "C" __global__ void ox_conv1d_causal(const Conv1dParams p) {
  const int64_t C = p.x.cols, n = p.x.rows, K = p.w.cols, km1 = K - 1;
  OX_FOR_EACH(i, n * C) {
    const int64_t t = i / C, c = i % C;
    const float* w = RowF(p.w, c);
    float acc = 0.0f;
    for (int64_t j = 0; j < K; ++j) acc = fmaf(w[j], Xp(p, t + j, c, km1), acc);
    RowF(p.out, t)[c] = Activation(p.act, acc);
  }
  float* scratch = reinterpret_cast<float*>(p.scratch);
  OX_FOR_EACH(i, km1 * C) {
    const int64_t r = i / C, c = i % C;
    scratch[i] = Xp(p, n + r, c, km1);
  }
}

extern "C" __global__ void ox_conv1d_state(const Conv1dParams p) {
  const int64_t C = p.x.cols, km1 = p.w.cols - 1;
  const float* scratch = reinterpret_cast<const float*>(p.scratch);
  OX_FOR_EACH(i, km1 * C) RowF(p.state, i / C)[i % C] = scratch[i];
}

// One block per value head; thread j owns column j of the head's state S
// [k_dim][v_dim] (coalesced across threads). Per token: S *= exp(g);
// d = (v - S^T k) * beta; S += k (outer) d; out = S^T q.
extern "C" __global__ void ox_gated_delta(const GatedDeltaParams p) {
  extern __shared__ float qk[];  // q then k of the current token, k_dim each
  const int h = blockIdx.x;
  const int kh = h / (p.n_v_heads / p.n_k_heads);
  float* S = RowF(p.state, h);
  for (int64_t t = 0; t < p.q.rows; ++t) {
    __syncthreads();
    for (int i = threadIdx.x; i < p.k_dim; i += blockDim.x) {
      qk[i] = RowF(p.q, t)[kh * p.k_dim + i];
      qk[p.k_dim + i] = RowF(p.k, t)[kh * p.k_dim + i];
    }
    __syncthreads();
    const float decay = expf(RowF(p.g, t)[h]);
    const float beta = RowF(p.beta, t)[h];
    for (int j = threadIdx.x; j < p.v_dim; j += blockDim.x) {
      float mem = 0.0f;
      for (int i = 0; i < p.k_dim; ++i) {
        const float s = S[int64_t(i) * p.v_dim + j] * decay;
        S[int64_t(i) * p.v_dim + j] = s;
        mem = fmaf(s, qk[p.k_dim + i], mem);
      }
      const float d = (RowF(p.v, t)[h * p.v_dim + j] - mem) * beta;
      float o = 0.0f;
      for (int i = 0; i < p.k_dim; ++i) {
        const float s = fmaf(qk[p.k_dim + i], d, S[int64_t(i) * p.v_dim + j]);
        S[int64_t(i) * p.v_dim + j] = s;
        o = fmaf(s, qk[i], o);
      }
      RowF(p.out, t)[h * p.v_dim + j] = o;
    }
  }
}
