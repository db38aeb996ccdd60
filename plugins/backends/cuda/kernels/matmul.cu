// y[m][n] = sum_k x[m][k] w[n][k] (+ bias[n]) on the GPU.
//   - float weights (F32, BF16, F16): a GEMV for decode (m <= 8: one warp per
//     output column, 16-byte loads of the weight row, all m rows at once, so
//     every weight byte is read once) and a 64x64-tiled f32 GEMM for prefill.
//     Both accumulate in f32 like the CPU reference, which keeps the models'
//     1e-4 bars (a bf16 tensor-core GEMM would round the activations).
//   - block weights (Q8_0, Q4_0): the activations are first quantised to Q8_0
//     (ox_quantize_q8, GGUF's rounding, as the CPU does), then integer dot
//     products per 32-element block (dp4a) scaled by both blocks' scales: a
//     GEMV of one warp per column for decode, a 32x32 tile in shared memory
//     for prefill.
// The activation quantisation is stored as rows of nb f32 scales followed by
// nb*32 int8 values (4-byte aligned for dp4a), not as GGUF's 34-byte blocks.
#include "plugins/backends/cuda/kernels/common.cuh"

using namespace oxinfer::cuda;

namespace {

constexpr int kMaxDecodeRows = 8;

// 8 consecutive elements of a float-typed row from a 16-byte aligned address.
__device__ __forceinline__ void Load8(const char* row, int32_t dtype, int64_t c0, float* v) {
  if (dtype == kF32) {
    const float4 a = *reinterpret_cast<const float4*>(row + c0 * 4);
    const float4 b = *reinterpret_cast<const float4*>(row + c0 * 4 + 16);
    v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w, v[4] = b.x, v[5] = b.y, v[6] = b.z, v[7] = b.w;
    return;
  }
  const uint4 u = *reinterpret_cast<const uint4*>(row + c0 * 2);
  const uint32_t w[4] = {u.x, u.y, u.z, u.w};
  for (int i = 0; i < 4; ++i) {
    const uint16_t lo = uint16_t(w[i] & 0xffffu), hi = uint16_t(w[i] >> 16);
    v[2 * i] = dtype == kBF16 ? Bf16ToF(lo) : F16ToF(lo);
    v[2 * i + 1] = dtype == kBF16 ? Bf16ToF(hi) : F16ToF(hi);
  }
}

__device__ __forceinline__ bool Aligned16(const Mat& m, int64_t elem) {
  return (m.ptr % 16) == 0 && (m.stride % 16) == 0 && (m.cols * elem) % 16 == 0;
}

__device__ __forceinline__ float Bias(const Mat& bias, int64_t n) {
  return bias.ptr != 0 ? RowF(bias, 0)[n] : 0.0f;
}

}  // namespace

// Decode, float weights: block of 4 warps, warp = one output column n.
extern "C" __global__ void ox_matmul_float_gemv(const MatmulParams p) {
  const int lane = threadIdx.x & 31;
  const int64_t n = int64_t(blockIdx.x) * (blockDim.x / 32) + (threadIdx.x / 32);
  if (n >= p.w.rows) return;
  const int64_t k = p.w.cols, m = p.x.rows;
  const int64_t welem = p.w.dtype == kF32 ? 4 : 2;
  float acc[kMaxDecodeRows] = {0, 0, 0, 0, 0, 0, 0, 0};
  const char* wrow = RowPtr(p.w, n);
  int64_t c = 0;
  if (Aligned16(p.w, welem) && Aligned16(p.x, 4)) {
    for (c = int64_t(lane) * 8; c + 8 <= k; c += 32 * 8) {
      float wv[8];
      Load8(wrow, p.w.dtype, c, wv);
      for (int r = 0; r < kMaxDecodeRows && r < m; ++r) {
        float xv[8];
        Load8(RowPtr(p.x, r), kF32, c, xv);
        for (int i = 0; i < 8; ++i) acc[r] = fmaf(xv[i], wv[i], acc[r]);
      }
    }
    c = k;  // k is a multiple of 8 here
  }
  for (int64_t j = c + lane; j < k; j += 32) {
    const float wv = LoadF(p.w, n, j);
    for (int r = 0; r < kMaxDecodeRows && r < m; ++r) acc[r] = fmaf(RowF(p.x, r)[j], wv, acc[r]);
  }
  for (int r = 0; r < kMaxDecodeRows && r < m; ++r) {
    const float s = WarpSum(acc[r]);
    if (lane == 0) RowF(p.y, r)[n] = s + Bias(p.bias, n);
  }
}

// Prefill, float weights: 64x64 output tile, 256 threads of 4x4 outputs,
// k in steps of 16 through shared memory (weights widened to f32 there).
extern "C" __global__ void ox_matmul_float_gemm(const MatmulParams p) {
  constexpr int TM = 64, TN = 64, TK = 16;
  __shared__ float xs[TK][TM + 1];
  __shared__ float ws[TK][TN + 1];
  const int64_t m0 = int64_t(blockIdx.y) * TM, n0 = int64_t(blockIdx.x) * TN;
  const int64_t m = p.x.rows, n = p.w.rows, k = p.x.cols;
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  float acc[4][4] = {};
  for (int64_t k0 = 0; k0 < k; k0 += TK) {
    for (int i = threadIdx.x; i < TM * TK; i += blockDim.x) {
      const int r = i / TK, c = i % TK;
      const int64_t gm = m0 + r, gn = n0 + r, gk = k0 + c;
      xs[c][r] = (gm < m && gk < k) ? RowF(p.x, gm)[gk] : 0.0f;
      ws[c][r] = (gn < n && gk < k) ? LoadF(p.w, gn, gk) : 0.0f;
    }
    __syncthreads();
    for (int c = 0; c < TK; ++c) {
      float a[4], b[4];
      for (int i = 0; i < 4; ++i) a[i] = xs[c][ty * 4 + i];
      for (int j = 0; j < 4; ++j) b[j] = ws[c][tx * 4 + j];
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i) {
    const int64_t gm = m0 + ty * 4 + i;
    if (gm >= m) continue;
    for (int j = 0; j < 4; ++j) {
      const int64_t gn = n0 + tx * 4 + j;
      if (gn < n) RowF(p.y, gm)[gn] = acc[i][j] + Bias(p.bias, gn);
    }
  }
}

// x rows to Q8_0 as GGUF's quantize_row_q8_0_ref: d = amax / 127 (kept as
// f16, as the block stores it), q = roundf(x / d). One warp per block.
extern "C" __global__ void ox_quantize_q8(const QuantizeParams p) {
  const int lane = threadIdx.x & 31;
  const int64_t nb = p.x.cols / kQK;
  const int64_t blocks = p.x.rows * nb;
  const int64_t warps = int64_t(gridDim.x) * (blockDim.x / 32);
  for (int64_t b = int64_t(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32; b < blocks;
       b += warps) {
    const int64_t r = b / nb, j = b % nb;
    const float v = RowF(p.x, r)[j * kQK + lane];
    const float amax = WarpMax(fabsf(v));
    const float d = amax / 127.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    char* row = reinterpret_cast<char*>(p.xq) + r * nb * (4 + kQK);
    if (lane == 0) reinterpret_cast<float*>(row)[j] = F16ToF(FToF16(d));
    reinterpret_cast<int8_t*>(row + nb * 4)[j * kQK + lane] = int8_t(roundf(v * id));
  }
}

namespace {

// A weight block's 32 values as 8 packed int32 of 4 int8 each, and its scale.
__device__ __forceinline__ float WeightBlock(const char* blk, int32_t dtype, int* q) {
  const uint16_t* h = reinterpret_cast<const uint16_t*>(blk);
  const float d = F16ToF(h[0]);
  if (dtype == kQ8_0) {
    for (int i = 0; i < 8; ++i) q[i] = int(uint32_t(h[1 + 2 * i]) | (uint32_t(h[2 + 2 * i]) << 16));
    return d;
  }
  // Q4_0: byte j holds element j (low nibble) and j + 16 (high), value - 8.
  for (int i = 0; i < 4; ++i) {
    const uint32_t bytes = uint32_t(h[1 + 2 * i]) | (uint32_t(h[2 + 2 * i]) << 16);
    const uint32_t lo = bytes & 0x0f0f0f0fu, hi = (bytes >> 4) & 0x0f0f0f0fu;
    q[i] = int(__vsub4(lo, 0x08080808u));
    q[4 + i] = int(__vsub4(hi, 0x08080808u));
  }
  return d;
}

__device__ __forceinline__ int BlockBytes(int32_t dtype) {
  return dtype == kQ8_0 ? kQ8Bytes : kQ4Bytes;
}

}  // namespace

// Decode, block weights: warp = one output column, lanes over the blocks.
extern "C" __global__ void ox_matmul_quant_gemv(const MatmulParams p) {
  const int lane = threadIdx.x & 31;
  const int64_t n = int64_t(blockIdx.x) * (blockDim.x / 32) + (threadIdx.x / 32);
  if (n >= p.w.rows) return;
  const int64_t nb = p.w.cols / kQK, m = p.x.rows;
  const int bb = BlockBytes(p.w.dtype);
  const char* wrow = RowPtr(p.w, n);
  float acc[kMaxDecodeRows] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int64_t b = lane; b < nb; b += 32) {
    int q[8];
    const float dw = WeightBlock(wrow + b * bb, p.w.dtype, q);
    for (int r = 0; r < kMaxDecodeRows && r < m; ++r) {
      const char* xrow = reinterpret_cast<const char*>(p.xq) + r * nb * (4 + kQK);
      const int* xqs = reinterpret_cast<const int*>(xrow + nb * 4 + b * kQK);
      int sum = 0;
      for (int i = 0; i < 8; ++i) sum = __dp4a(q[i], xqs[i], sum);
      acc[r] += float(sum) * (dw * reinterpret_cast<const float*>(xrow)[b]);
    }
  }
  for (int r = 0; r < kMaxDecodeRows && r < m; ++r) {
    const float s = WarpSum(acc[r]);
    if (lane == 0) RowF(p.y, r)[n] = s + Bias(p.bias, n);
  }
}

// Prefill, block weights: a 32x32 output tile of 256 threads (4 rows each),
// one 32-element block of k per step in shared memory.
extern "C" __global__ void ox_matmul_quant_gemm(const MatmulParams p) {
  constexpr int TM = 32, TN = 32;
  __shared__ int xs[TM][9];
  __shared__ int ws[TN][9];
  __shared__ float xd[TM], wd[TN];
  const int64_t m0 = int64_t(blockIdx.y) * TM, n0 = int64_t(blockIdx.x) * TN;
  const int64_t m = p.x.rows, n = p.w.rows, nb = p.w.cols / kQK;
  const int bb = BlockBytes(p.w.dtype);
  const int tn = threadIdx.x % TN, tm = threadIdx.x / TN;  // tm in [0, 8): rows tm*4..
  float acc[4] = {0, 0, 0, 0};
  for (int64_t b = 0; b < nb; ++b) {
    if (threadIdx.x < TM) {
      const int64_t gm = m0 + threadIdx.x;
      if (gm < m) {
        const char* xrow = reinterpret_cast<const char*>(p.xq) + gm * nb * (4 + kQK);
        const int* xqs = reinterpret_cast<const int*>(xrow + nb * 4 + b * kQK);
        for (int i = 0; i < 8; ++i) xs[threadIdx.x][i] = xqs[i];
        xd[threadIdx.x] = reinterpret_cast<const float*>(xrow)[b];
      } else {
        for (int i = 0; i < 8; ++i) xs[threadIdx.x][i] = 0;
        xd[threadIdx.x] = 0.0f;
      }
    } else if (threadIdx.x < TM + TN) {
      const int j = threadIdx.x - TM;
      const int64_t gn = n0 + j;
      int q[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      wd[j] = gn < n ? WeightBlock(RowPtr(p.w, gn) + b * bb, p.w.dtype, q) : 0.0f;
      for (int i = 0; i < 8; ++i) ws[j][i] = q[i];
    }
    __syncthreads();
    for (int r = 0; r < 4; ++r) {
      const int lm = tm * 4 + r;
      int sum = 0;
      for (int i = 0; i < 8; ++i) sum = __dp4a(xs[lm][i], ws[tn][i], sum);
      acc[r] += float(sum) * (wd[tn] * xd[lm]);
    }
    __syncthreads();
  }
  const int64_t gn = n0 + tn;
  if (gn >= n) return;
  for (int r = 0; r < 4; ++r) {
    const int64_t gm = m0 + tm * 4 + r;
    if (gm < m) RowF(p.y, gm)[gn] = acc[r] + Bias(p.bias, gn);
  }
}
