// Image kernels over channels-last images: conv2d as an implicit GEMM (the
// float GEMM's 64x64 tiling with the input pixels gathered per kernel tap,
// zero padding outside), and nearest upsampling.
#include "plugins/backends/cuda/kernels/common.cuh"

using namespace oxinfer::cuda;

namespace {

// Row `pix` (an output pixel) and column kk = (ky * kw + kx) * cin + ci of
// the implicit im2col matrix.
__device__ __forceinline__ float Gather(const Conv2dParams& p, int64_t pix, int64_t kk) {
  const int64_t per_img = int64_t(p.ho) * p.wo;
  const int64_t b = pix / per_img, oy = (pix % per_img) / p.wo, ox = pix % p.wo;
  const int64_t ci = kk % p.cin, tap = kk / p.cin;
  const int64_t ky = tap / p.kw, kx = tap % p.kw;
  const int64_t iy = oy * p.stride + ky - p.pad, ix = ox * p.stride + kx - p.pad;
  if (iy < 0 || iy >= p.height || ix < 0 || ix >= p.width) return 0.0f;
  return RowF(p.x, (b * p.height + iy) * p.width + ix)[ci];
}

}  // namespace

extern "C" __global__ void ox_conv2d(const Conv2dParams p) {
  constexpr int TM = 64, TN = 64, TK = 16;
  __shared__ float xs[TK][TM + 1];
  __shared__ float ws[TK][TN + 1];
  const int64_t m = p.out.rows, n = p.cout, k = int64_t(p.kh) * p.kw * p.cin;
  const int64_t m0 = int64_t(blockIdx.y) * TM, n0 = int64_t(blockIdx.x) * TN;
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  float acc[4][4] = {};
  for (int64_t k0 = 0; k0 < k; k0 += TK) {
    for (int i = threadIdx.x; i < TM * TK; i += blockDim.x) {
      const int r = i / TK, c = i % TK;
      const int64_t gm = m0 + r, gn = n0 + r, gk = k0 + c;
      xs[c][r] = (gm < m && gk < k) ? Gather(p, gm, gk) : 0.0f;
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
      if (gn < n) RowF(p.out, gm)[gn] = acc[i][j] + (p.bias.ptr != 0 ? RowF(p.bias, 0)[gn] : 0.0f);
    }
  }
}

extern "C" __global__ void ox_upsample_nearest(const UpsampleParams p) {
  const int64_t c = p.x.cols;
  const int64_t oh = int64_t(p.height) * p.factor, ow = int64_t(p.width) * p.factor;
  OX_FOR_EACH(i, p.out.rows * c) {
    const int64_t r = i / c, ch = i % c;
    const int64_t b = r / (oh * ow), y = (r % (oh * ow)) / ow, x = r % ow;
    const int64_t src = (b * p.height + y / p.factor) * p.width + x / p.factor;
    RowF(p.out, r)[ch] = RowF(p.x, src)[ch];
  }
}
