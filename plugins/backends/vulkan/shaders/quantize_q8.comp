#version 450
// Activation rows quantised to Q8_0 as the CPU does before a matmul on block
// weights (GGUF's quantize_row_q8_0_ref: d = amax / 127, q = roundf(x / d)),
// into the scratch layout the matmuls read: per block one word of f32 scale
// (rounded to f16, as the block stores it) and eight words of int8 values.
// Tensors: 0 x [m][k] f32, 1 scratch.
#include "common.glsl"
layout(local_size_x = 64) in;
layout(push_constant) uniform PC {
  uint off0, stride0, off1, stride1;
  uint m, nb;
} pc;

void main() {
  uint id = group_index() * 64u + gl_LocalInvocationID.x;
  if (id >= pc.m * pc.nb) return;
  uint r = id / pc.nb, b = id % pc.nb;
  uint src = pc.off0 + r * pc.stride0 + b * 128u;
  float v[32];
  float amax = 0.0;
  for (uint j = 0u; j < 32u; ++j) {
    v[j] = LD_F32(0, src + 4u * j);
    amax = max(amax, abs(v[j]));
  }
  float d = amax / 127.0;
  float inv = d != 0.0 ? 1.0 / d : 0.0;
  uint dst = pc.off1 + (r * pc.nb + b) * 36u;
  WORD(1, dst) = floatBitsToUint(unpackHalf2x16(f32_to_f16(d)).x);
  for (uint w = 0u; w < 8u; ++w) {
    uint packed = 0u;
    for (uint j = 0u; j < 4u; ++j) {
      int q = int(round_away(v[4u * w + j] * inv));
      packed |= (uint(q) & 0xffu) << (8u * j);
    }
    WORD(1, dst + 4u + 4u * w) = packed;
  }
}
