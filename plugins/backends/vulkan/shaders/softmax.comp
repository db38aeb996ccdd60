#version 450
// out = softmax(x * scale) per row (one workgroup each); a row of only -inf
// gives zeros, as the CPU does. l2_norm shares the row reduction:
// out = x / sqrt(sum(x^2) + eps) * scale when is_l2 is set.
// Tensors: 0 x, 1 out.
#include "common.glsl"
layout(local_size_x = 64) in;
layout(push_constant) uniform PC {
  uint off0, stride0, off1, stride1;
  uint rows, cols, is_l2;
  float scale, eps;
} pc;

shared float red[64];

float reduce_max(float v) {
  uint t = gl_LocalInvocationID.x;
  red[t] = v;
  barrier();
  for (uint s = 32u; s > 0u; s >>= 1) {
    if (t < s) red[t] = max(red[t], red[t + s]);
    barrier();
  }
  float r = red[0];
  barrier();
  return r;
}

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
  uint x = pc.off0 + r * pc.stride0, o = pc.off1 + r * pc.stride1;
  if (pc.is_l2 != 0u) {
    float ss = 0.0;
    for (uint c = t; c < pc.cols; c += 64u) {
      float v = LD_F32(0, x + 4u * c);
      ss = fma(v, v, ss);
    }
    float inv = 1.0 / sqrt(reduce_sum(ss) + pc.eps);
    for (uint c = t; c < pc.cols; c += 64u) {
      ST_F32(1, o + 4u * c, LD_F32(0, x + 4u * c) * inv * pc.scale);
    }
    return;
  }
  float mx = -1.0 / 0.0;
  for (uint c = t; c < pc.cols; c += 64u) mx = max(mx, LD_F32(0, x + 4u * c) * pc.scale);
  mx = reduce_max(mx);
  if (isinf(mx) && mx < 0.0) {
    for (uint c = t; c < pc.cols; c += 64u) ST_F32(1, o + 4u * c, 0.0);
    return;
  }
  float sum = 0.0;
  for (uint c = t; c < pc.cols; c += 64u) sum += exp_acc(LD_F32(0, x + 4u * c) * pc.scale - mx);
  float inv = 1.0 / reduce_sum(sum);
  for (uint c = t; c < pc.cols; c += 64u) {
    ST_F32(1, o + 4u * c, exp_acc(LD_F32(0, x + 4u * c) * pc.scale - mx) * inv);
  }
}
