#version 450
// out = (x - mean) / sqrt(var + eps) * gamma + beta per row (biased
// variance, two passes), one workgroup per row. Tensors: 0 x, 1 gamma, 2 beta, 3 out.
#include "common.glsl"
layout(local_size_x = 64) in;
layout(push_constant) uniform PC {
  uint off0, stride0, off1, stride1, off2, stride2, off3, stride3;
  uint rows, dim, has_gamma, has_beta;
  float eps;
} pc;

shared float red[64];

float reduce_sum(float v) {
  uint t = gl_LocalInvocationID.x;
  red[t] = v;
  barrier();
  for (uint s = 32u; s > 0u; s >>= 1) {
    if (t < s) red[t] += red[t + s];
    barrier();
  }
  float r = red[0];
  barrier();
  return r;
}

void main() {
  uint r = group_index();
  if (r >= pc.rows) return;
  uint t = gl_LocalInvocationID.x;
  uint x = pc.off0 + r * pc.stride0, o = pc.off3 + r * pc.stride3;
  float s = 0.0;
  for (uint c = t; c < pc.dim; c += 64u) s += LD_F32(0, x + 4u * c);
  float mean = reduce_sum(s) / float(pc.dim);
  float v = 0.0;
  for (uint c = t; c < pc.dim; c += 64u) {
    float d = LD_F32(0, x + 4u * c) - mean;
    v = fma(d, d, v);
  }
  float rstd = 1.0 / sqrt(reduce_sum(v) / float(pc.dim) + pc.eps);
  for (uint c = t; c < pc.dim; c += 64u) {
    float y = (LD_F32(0, x + 4u * c) - mean) * rstd;
    if (pc.has_gamma != 0u) y *= LD_F32(1, pc.off1 + 4u * c);
    if (pc.has_beta != 0u) y += LD_F32(2, pc.off2 + 4u * c);
    ST_F32(3, o + 4u * c, y);
  }
}
