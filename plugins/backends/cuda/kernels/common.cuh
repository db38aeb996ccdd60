// What every kernel file shares: element access by dtype, the activation
// functions (the CPU reference's formulas, plugins/backends/cpu/unary.cc),
// and warp / block reductions.
#ifndef OXINFER_PLUGINS_BACKENDS_CUDA_KERNELS_COMMON_CUH_
#define OXINFER_PLUGINS_BACKENDS_CUDA_KERNELS_COMMON_CUH_

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "plugins/backends/cuda/kernels/kernel_params.h"

namespace oxinfer {
namespace cuda {

// oxi_dtype values (oxinfer/dtype.h; not included: it is C for the host).
enum : int32_t { kF32 = 1, kBF16 = 2, kF16 = 3, kQ8_0 = 4, kQ4_0 = 5, kI32 = 7 };
constexpr int kQK = 32;
constexpr int kQ8Bytes = 34;  // f16 d, 32 x int8
constexpr int kQ4Bytes = 18;  // f16 d, 16 bytes of two nibbles

__device__ __forceinline__ char* RowPtr(const Mat& m, int64_t r) {
  return reinterpret_cast<char*>(m.ptr) + r * m.stride;
}
__device__ __forceinline__ float* RowF(const Mat& m, int64_t r) {
  return reinterpret_cast<float*>(RowPtr(m, r));
}
__device__ __forceinline__ const int32_t* RowI(const Mat& m, int64_t r) {
  return reinterpret_cast<const int32_t*>(RowPtr(m, r));
}

__device__ __forceinline__ float Bf16ToF(uint16_t b) { return __uint_as_float(uint32_t(b) << 16); }
__device__ __forceinline__ float F16ToF(uint16_t h) { return __half2float(__ushort_as_half(h)); }
// Round to nearest even, as the CPU's conversions (NaN kept a NaN).
__device__ __forceinline__ uint16_t FToBf16(float f) {
  const uint32_t u = __float_as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40);
  return uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
__device__ __forceinline__ uint16_t FToF16(float f) { return __half_as_ushort(__float2half_rn(f)); }

// Element c of row r of a float-typed matrix (F32, BF16, F16) as f32.
__device__ __forceinline__ float LoadF(const Mat& m, int64_t r, int64_t c) {
  const char* row = RowPtr(m, r);
  switch (m.dtype) {
    case kBF16:
      return Bf16ToF(reinterpret_cast<const uint16_t*>(row)[c]);
    case kF16:
      return F16ToF(reinterpret_cast<const uint16_t*>(row)[c]);
    default:
      return reinterpret_cast<const float*>(row)[c];
  }
}
__device__ __forceinline__ void StoreF(const Mat& m, int64_t r, int64_t c, float v) {
  char* row = RowPtr(m, r);
  switch (m.dtype) {
    case kBF16:
      reinterpret_cast<uint16_t*>(row)[c] = FToBf16(v);
      break;
    case kF16:
      reinterpret_cast<uint16_t*>(row)[c] = FToF16(v);
      break;
    case kI32:
      reinterpret_cast<int32_t*>(row)[c] = int32_t(v);
      break;
    default:
      reinterpret_cast<float*>(row)[c] = v;
  }
}

// Element c of a row of a block type (Q8_0, Q4_0), dequantised.
__device__ __forceinline__ float LoadBlockElement(const char* row, int32_t dtype, int64_t c) {
  const int64_t b = c / kQK;
  const int j = int(c % kQK);
  if (dtype == kQ8_0) {
    const char* blk = row + b * kQ8Bytes;
    const float d = F16ToF(*reinterpret_cast<const uint16_t*>(blk));
    return d * float(reinterpret_cast<const int8_t*>(blk + 2)[j]);
  }
  const char* blk = row + b * kQ4Bytes;
  const float d = F16ToF(*reinterpret_cast<const uint16_t*>(blk));
  const uint8_t byte = reinterpret_cast<const uint8_t*>(blk + 2)[j & 15];
  const int q = (j < 16 ? (byte & 15) : (byte >> 4)) - 8;
  return d * float(q);
}

// Any matmul weight type, element (r, c), as f32.
__device__ __forceinline__ float LoadAny(const Mat& m, int64_t r, int64_t c) {
  if (m.dtype == kQ8_0 || m.dtype == kQ4_0) return LoadBlockElement(RowPtr(m, r), m.dtype, c);
  return LoadF(m, r, c);
}

// oxi_unary_op, with the CPU reference's formulas.
__device__ __forceinline__ float Activation(int32_t fn, float v) {
  switch (fn) {
    case 1: {  // GELU_TANH
      const float c = 0.7978845608028654f;
      return 0.5f * v * (1.0f + tanhf(c * (v + 0.044715f * v * v * v)));
    }
    case 2:
      return v / (1.0f + expf(-v));  // SILU
    case 3:
      return 1.0f / (1.0f + expf(-v));  // SIGMOID
    case 4:
      return v > 20.0f ? v : log1pf(expf(v));  // SOFTPLUS
    case 5:
      return expf(v);
    case 6:
      return tanhf(v);
    case 7:
      return 0.5f * v * (1.0f + erff(v * 0.7071067811865476f));  // GELU_ERF
    case 8:
      return v * (1.0f / (1.0f + expf(-(v * 1.702f))));  // QUICK_GELU
    case 9:
      return v < 0.0f ? 0.0f : v;  // RELU
    default:
      return v;
  }
}

__device__ __forceinline__ float WarpSum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ float WarpMax(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
// Sum / max over a block of blockDim.x threads (a multiple of 32, at most
// 1024); every thread gets the result. `scratch` holds 32 floats.
__device__ __forceinline__ float BlockSum(float v, float* scratch) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  v = WarpSum(v);
  __syncthreads();
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < int(blockDim.x >> 5) ? scratch[lane] : 0.0f;
  return WarpSum(v);
}
__device__ __forceinline__ float BlockMax(float v, float* scratch) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  v = WarpMax(v);
  __syncthreads();
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < int(blockDim.x >> 5) ? scratch[lane] : -INFINITY;
  return WarpMax(v);
}

// A grid-stride loop over n items.
#define OX_FOR_EACH(i, n)                                                   \
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += int64_t(gridDim.x) * blockDim.x)

}  // namespace cuda
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_BACKENDS_CUDA_KERNELS_COMMON_CUH_
