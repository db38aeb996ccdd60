#version 450
// Group norm, second pass: out = act((x - mean) * rstd * gamma + beta).
// Tensors: 0 x, 1 gamma, 2 beta, 3 out, 4 stats.
#include "common.glsl"
#include "activation.glsl"
layout(local_size_x = 256) in;
layout(push_constant) uniform PC {
  uint off0, stride0, off1, stride1, off2, stride2, off3, stride3, off4, stride4;
  uint rows, channels, pixels, groups, has_gamma, has_beta, act;
} pc;

void main() {
  uint e = group_index() * 256u + gl_LocalInvocationID.x;
  if (e >= pc.rows * pc.channels) return;
  uint r = e / pc.channels, c = e % pc.channels;
  uint job = (r / pc.pixels) * pc.groups + c / (pc.channels / pc.groups);
  float mean = LD_F32(4, pc.off4 + 8u * job), rstd = LD_F32(4, pc.off4 + 8u * job + 4u);
  float y = (LD_F32(0, pc.off0 + r * pc.stride0 + 4u * c) - mean) * rstd;
  if (pc.has_gamma != 0u) y *= LD_F32(1, pc.off1 + 4u * c);
  if (pc.has_beta != 0u) y += LD_F32(2, pc.off2 + 4u * c);
  ST_F32(3, pc.off3 + r * pc.stride3 + 4u * c, activate(pc.act, y));
}
