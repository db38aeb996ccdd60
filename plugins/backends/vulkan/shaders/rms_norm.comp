#version 450
// out = x / sqrt(mean(x^2) + eps) * (weight + offset), one workgroup per row.
// Tensors: 0 x, 1 weight (or the dummy), 2 out.
#include "common.glsl"
layout(local_size_x = 64) in;
layout(push_constant) uniform PC {
  uint off0, stride0, off1, stride1, off2, stride2;
  uint rows, dim, has_weight;
  float eps, weight_offset;
} pc;

shared float partial[64];

void main() {
  uint r = group_index();
  if (r >= pc.rows) return;
  uint t = gl_LocalInvocationID.x;
  uint x = pc.off0 + r * pc.stride0;
  float ss = 0.0;
  for (uint c = t; c < pc.dim; c += 64u) {
    float v = LD_F32(0, x + 4u * c);
    ss = fma(v, v, ss);
  }
  partial[t] = ss;
  barrier();
  for (uint s = 32u; s > 0u; s >>= 1) {
    if (t < s) partial[t] += partial[t + s];
    barrier();
  }
  float inv = 1.0 / sqrt(partial[0] / float(pc.dim) + pc.eps);
  uint o = pc.off2 + r * pc.stride2;
  for (uint c = t; c < pc.dim; c += 64u) {
    float w = pc.has_weight != 0u ? LD_F32(1, pc.off1 + 4u * c) + pc.weight_offset : 1.0;
    ST_F32(2, o + 4u * c, LD_F32(0, x + 4u * c) * inv * w);
  }
}
