#version 450
// Depthwise causal conv over time with its state, then act (NONE or SILU):
// one thread per channel walks the tokens with the last K-1 inputs in
// registers; the state becomes the last K-1 rows of state ++ x.
// Tensors: 0 x, 1 w, 2 state, 3 out.
#include "common.glsl"
#include "activation.glsl"
layout(local_size_x = 64) in;
layout(push_constant) uniform PC {
  uint off0, stride0, off1, stride1, off2, stride2, off3, stride3;
  uint n, channels, ksize, act;
} pc;

void main() {
  uint c = group_index() * 64u + gl_LocalInvocationID.x;
  if (c >= pc.channels) return;
  uint hist = pc.ksize - 1u;
  float win[16];  // the K-1 previous inputs, oldest first
  float w[16];
  for (uint j = 0u; j < pc.ksize; ++j) w[j] = LD_F32(1, pc.off1 + c * pc.stride1 + 4u * j);
  for (uint j = 0u; j < hist; ++j) win[j] = LD_F32(2, pc.off2 + j * pc.stride2 + 4u * c);
  for (uint t = 0u; t < pc.n; ++t) {
    float xt = LD_F32(0, pc.off0 + t * pc.stride0 + 4u * c);
    float s = 0.0;
    for (uint j = 0u; j < hist; ++j) s += w[j] * win[j];
    s += w[hist] * xt;
    for (uint j = 0u; j + 1u < hist; ++j) win[j] = win[j + 1u];
    if (hist > 0u) win[hist - 1u] = xt;
    ST_F32(3, pc.off3 + t * pc.stride3 + 4u * c, activate(pc.act, s));
  }
  for (uint j = 0u; j < hist; ++j) ST_F32(2, pc.off2 + j * pc.stride2 + 4u * c, win[j]);
}
