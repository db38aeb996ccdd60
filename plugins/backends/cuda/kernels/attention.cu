// Attention over a KV cache in three passes through a scores scratch of
// batch * n_q * n_heads * n_kv floats: scores (one warp per query, head and
// slot: visibility, scale, softcap, mask), a softmax per (query, head) row
// (a row that sees no slot gives zeros), then the weighted sum of values (one
// block per query and head, threads over the value dims). Exact softmax in
// f32 like the CPU reference; no flash-style rescaling.
#include "plugins/backends/cuda/kernels/common.cuh"

using namespace oxinfer::cuda;

namespace {

__device__ __forceinline__ int32_t PosOr(const Mat& m, int64_t i) {
  return m.ptr != 0 ? RowI(m, 0)[i] : int32_t(i);
}
__device__ __forceinline__ int32_t SpanOr0(const Mat& m, int64_t i) {
  return m.ptr != 0 ? RowI(m, 0)[i] : 0;
}

}  // namespace

extern "C" __global__ void ox_attn_scores(const AttentionParams p, float* scores) {
  const int lane = threadIdx.x & 31;
  const int64_t items = int64_t(p.batch) * p.n_q * p.n_heads * p.n_kv;
  const int64_t warps = int64_t(gridDim.x) * (blockDim.x / 32);
  const int group = p.n_heads / p.n_kv_heads;
  for (int64_t it = int64_t(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32; it < items;
       it += warps) {
    const int64_t i = it % p.n_kv;
    const int64_t h = (it / p.n_kv) % p.n_heads;
    const int64_t t = (it / (p.n_kv * p.n_heads)) % p.n_q;
    const int64_t b = it / (p.n_kv * p.n_heads * p.n_q);
    const int32_t kp = p.kv_pos.ptr != 0 ? RowI(p.kv_pos, 0)[i] : int32_t(i);
    const int32_t qp = PosOr(p.q_pos, t);
    const int32_t qs = SpanOr0(p.q_span, t);
    bool visible = kp >= 0;
    if (visible && !(qs != 0 && qs == SpanOr0(p.kv_span, i))) {
      visible = (!p.causal || kp <= qp) && (p.window <= 0 || qp - kp < p.window);
    }
    float s = -INFINITY;
    if (visible) {
      const float* q = RowF(p.q, b * p.n_q + t) + h * p.head_dim;
      const int64_t kr = b * p.n_kv + i, kc = (h / group) * p.head_dim;
      float dot = 0.0f;
      for (int d = lane; d < p.head_dim; d += 32) dot = fmaf(q[d], LoadF(p.k, kr, kc + d), dot);
      dot = WarpSum(dot);
      s = p.scale * dot;
      if (p.softcap > 0.0f) s = p.softcap * tanhf(s / p.softcap);
      if (p.mask.ptr != 0) s += RowF(p.mask, t)[i];
    }
    if (lane == 0) scores[it] = s;
  }
}

// One block per (part, query, head) row of n_kv scores, in place.
extern "C" __global__ void ox_attn_softmax(const AttentionParams p, float* scores) {
  __shared__ float scratch[32];
  float* row = scores + int64_t(blockIdx.x) * p.n_kv;
  float mx = -INFINITY;
  for (int64_t i = threadIdx.x; i < p.n_kv; i += blockDim.x) mx = fmaxf(mx, row[i]);
  mx = BlockMax(mx, scratch);
  if (mx == -INFINITY) {  // sees no slot: zeros
    for (int64_t i = threadIdx.x; i < p.n_kv; i += blockDim.x) row[i] = 0.0f;
    return;
  }
  float sum = 0.0f;
  for (int64_t i = threadIdx.x; i < p.n_kv; i += blockDim.x) sum += expf(row[i] - mx);
  sum = BlockSum(sum, scratch);
  const float inv = 1.0f / sum;
  for (int64_t i = threadIdx.x; i < p.n_kv; i += blockDim.x) row[i] = expf(row[i] - mx) * inv;
}

extern "C" __global__ void ox_attn_values(const AttentionParams p, const float* probs) {
  const int64_t row = blockIdx.x;  // (b * n_q + t) * n_heads + h
  const int64_t h = row % p.n_heads;
  const int64_t bt = row / p.n_heads;
  const int64_t b = bt / p.n_q;
  const int group = p.n_heads / p.n_kv_heads;
  const float* pr = probs + row * p.n_kv;
  const int64_t vc = (h / group) * p.v_head_dim;
  float* out = RowF(p.out, bt) + h * p.v_head_dim;
  for (int d = threadIdx.x; d < p.v_head_dim; d += blockDim.x) {
    float acc = 0.0f;
    for (int64_t i = 0; i < p.n_kv; ++i) {
      const float w = pr[i];
      if (w != 0.0f) acc = fmaf(w, LoadF(p.v, b * p.n_kv + i, vc + d), acc);
    }
    out[d] = acc;
  }
}
