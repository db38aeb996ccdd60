#version 450
// y[i][j] = x[i] . w[j] (+ bias[j]) for few rows of x (decode): one
// workgroup per output, its threads splitting k, reduced in shared memory.
// Block weights (Q8_0 / Q4_0) take the Q8_0-quantised activations from
// tensor 4 (quantize_q8.comp): per block an integer dot times both scales.
// Tensors: 0 x, 1 w, 2 bias (or the dummy), 3 y, 4 quantised x.
#include "common.glsl"
layout(local_size_x = 64) in;
layout(push_constant) uniform PC {
  uint off0, stride0, off1, stride1, off2, stride2, off3, stride3, off4, stride4;
  uint m, n, k, wtype, has_bias;
} pc;

shared float partial[64];

void main() {
  uint g = group_index();
  if (g >= pc.m * pc.n) return;
  uint i = g / pc.n, j = g % pc.n;
  uint t = gl_LocalInvocationID.x;
  uint wrow = pc.off1 + j * pc.stride1;
  float acc = 0.0;
  if (pc.wtype == DT_Q8_0 || pc.wtype == DT_Q4_0) {
    uint nb = pc.k / 32u;
    uint xrow = pc.off4 + i * nb * 36u;
    for (uint b = t; b < nb; b += 64u) {
      uint xb = xrow + b * 36u;
      int isum = 0;
      if (pc.wtype == DT_Q8_0) {
        uint wb = wrow + b * 34u;
        for (uint p = 0u; p < 32u; ++p) {
          isum += sext8(LD_U8(4, xb + 4u + p)) * sext8(LD_U8(1, wb + 2u + p));
        }
        acc += float(isum) * (LD_F32(4, xb) * LD_F16(1, wb));
      } else {
        uint wb = wrow + b * 18u;
        for (uint p = 0u; p < 16u; ++p) {
          uint byte_ = LD_U8(1, wb + 2u + p);
          isum += sext8(LD_U8(4, xb + 4u + p)) * (int(byte_ & 15u) - 8);
          isum += sext8(LD_U8(4, xb + 20u + p)) * (int(byte_ >> 4) - 8);
        }
        acc += float(isum) * (LD_F32(4, xb) * LD_F16(1, wb));
      }
    }
  } else {
    uint xrow = pc.off0 + i * pc.stride0;
    for (uint p = t; p < pc.k; p += 64u) {
      float wv;
      LD_ELEM(1, pc.wtype, wrow, p, wv);
      acc = fma(LD_F32(0, xrow + 4u * p), wv, acc);
    }
  }
  partial[t] = acc;
  barrier();
  for (uint s = 32u; s > 0u; s >>= 1) {
    if (t < s) partial[t] += partial[t + s];
    barrier();
  }
  if (t == 0u) {
    float y = partial[0];
    if (pc.has_bias != 0u) y += LD_F32(2, pc.off2 + 4u * j);
    ST_F32(3, pc.off3 + i * pc.stride3 + 4u * j, y);
  }
}
