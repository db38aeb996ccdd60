// Per-row reductions: RMS norm, L2 norm, layer norm and softmax, one block
// per row, and group norm over channels-last images (statistics first, then
// the normalisation). Sums in f32, as the CPU reference.
#include "plugins/backends/cuda/kernels/common.cuh"

using namespace oxinfer::cuda;

namespace {
enum : int32_t { kSoftmax = 12, kRms = 13, kL2 = 14, kLayer = 15 };
}

extern "C" __global__ void ox_row_norm(const NormParams p) {
  __shared__ float scratch[32];
  const int64_t r = blockIdx.x;
  const int64_t dim = p.x.cols;
  const float* x = RowF(p.x, r);
  float* out = RowF(p.out, r);
  if (p.kind == kSoftmax) {
    float mx = -INFINITY;
    for (int64_t c = threadIdx.x; c < dim; c += blockDim.x) mx = fmaxf(mx, x[c] * p.weight_offset);
    mx = BlockMax(mx, scratch);
    float sum = 0.0f;
    for (int64_t c = threadIdx.x; c < dim; c += blockDim.x)
      sum += expf(x[c] * p.weight_offset - mx);
    sum = BlockSum(sum, scratch);
    const float inv = 1.0f / sum;
    for (int64_t c = threadIdx.x; c < dim; c += blockDim.x) {
      out[c] = expf(x[c] * p.weight_offset - mx) * inv;
    }
    return;
  }
  if (p.kind == kLayer) {
    float s = 0.0f;
    for (int64_t c = threadIdx.x; c < dim; c += blockDim.x) s += x[c];
    const float mean = BlockSum(s, scratch) / float(dim);
    float v = 0.0f;
    for (int64_t c = threadIdx.x; c < dim; c += blockDim.x) v += (x[c] - mean) * (x[c] - mean);
    const float rstd = 1.0f / sqrtf(BlockSum(v, scratch) / float(dim) + p.eps);
    for (int64_t c = threadIdx.x; c < dim; c += blockDim.x) {
      const float g = p.weight.ptr != 0 ? RowF(p.weight, 0)[c] : 1.0f;
      const float b = p.bias.ptr != 0 ? RowF(p.bias, 0)[c] : 0.0f;
      out[c] = (x[c] - mean) * rstd * g + b;
    }
    return;
  }
  float ss = 0.0f;
  for (int64_t c = threadIdx.x; c < dim; c += blockDim.x) ss += x[c] * x[c];
  ss = BlockSum(ss, scratch);
  if (p.kind == kL2) {
    const float f = p.weight_offset / sqrtf(ss + p.eps);
    for (int64_t c = threadIdx.x; c < dim; c += blockDim.x) out[c] = x[c] * f;
    return;
  }
  const float f = 1.0f / sqrtf(ss / float(dim) + p.eps);
  for (int64_t c = threadIdx.x; c < dim; c += blockDim.x) {
    const float w = p.weight.ptr != 0 ? RowF(p.weight, 0)[c] + p.weight_offset : 1.0f;
    out[c] = x[c] * f * w;
  }
}

// Group norm, pass 1: one block per (image, group): mean and 1/std over the
// image's pixels and the group's channels, into stats.
extern "C" __global__ void ox_group_norm_stats(const GroupNormParams p) {
  __shared__ float scratch[32];
  const int img = blockIdx.x / p.groups, g = blockIdx.x % p.groups;
  const int64_t pixels = p.x.rows / p.batch;
  const int64_t cg = p.x.cols / p.groups;
  const int64_t n = pixels * cg;
  float s = 0.0f;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    s += RowF(p.x, img * pixels + i / cg)[g * cg + i % cg];
  }
  const float mean = BlockSum(s, scratch) / float(n);
  float v = 0.0f;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    const float d = RowF(p.x, img * pixels + i / cg)[g * cg + i % cg] - mean;
    v += d * d;
  }
  const float var = BlockSum(v, scratch) / float(n);
  if (threadIdx.x == 0) {
    float* stats = reinterpret_cast<float*>(p.stats) + 2 * blockIdx.x;
    stats[0] = mean;
    stats[1] = 1.0f / sqrtf(var + p.eps);
  }
}

// Group norm, pass 2: every element, then gamma / beta and the activation.
extern "C" __global__ void ox_group_norm_apply(const GroupNormParams p) {
  const int64_t cols = p.x.cols, pixels = p.x.rows / p.batch, cg = cols / p.groups;
  const float* stats = reinterpret_cast<const float*>(p.stats);
  OX_FOR_EACH(i, p.x.rows * cols) {
    const int64_t r = i / cols, c = i % cols;
    const int64_t s = (r / pixels) * p.groups + c / cg;
    float v = (RowF(p.x, r)[c] - stats[2 * s]) * stats[2 * s + 1];
    if (p.gamma.ptr != 0) v *= RowF(p.gamma, 0)[c];
    if (p.beta.ptr != 0) v += RowF(p.beta, 0)[c];
    RowF(p.out, r)[c] = Activation(p.act, v);
  }
}

// Rotate-half RoPE: pairs (j, j + rot/2) of each head, angle pos * inv_freq[j];
// one thread per pair (or per passed-through dim), so in place is safe.
extern "C" __global__ void ox_rope(const RopeParams p) {
  const int half = p.rot_dim / 2;
  const int per_head = p.head_dim - half;  // half pairs, then head_dim - rot_dim copies
  const int64_t per_tok = int64_t(p.n_heads) * per_head;
  OX_FOR_EACH(i, p.x.rows * per_tok) {
    const int64_t t = i / per_tok;
    const int64_t h = (i % per_tok) / per_head;
    const int j = int(i % per_head);
    const float* x = RowF(p.x, t) + h * p.head_dim;
    float* out = RowF(p.out, t) + h * p.head_dim;
    if (j >= half) {
      out[j + half] = x[j + half];
      continue;
    }
    const float angle = float(RowI(p.pos, 0)[t]) * RowF(p.inv_freq, 0)[j];
    const float cs = cosf(angle), sn = sinf(angle);
    const float a = x[j], b = x[j + half];
    out[j] = a * cs - b * sn;
    out[j + half] = b * cs + a * sn;
  }
}
