#version 450
// Group norm, first pass: mean and 1/std of each (image, group) over its
// pixels and the group's channels (two passes, biased variance), one
// workgroup each, into scratch as [job][2].
// Tensors: 0 x, 1 stats.
#include "common.glsl"
layout(local_size_x = 256) in;
layout(push_constant) uniform PC {
  uint off0, stride0, off1, stride1;
  uint pixels, channels, groups, jobs;
  float eps;
} pc;

shared float red[256];

float reduce_sum(float v) {
  uint t = gl_LocalInvocationID.x;
  red[t] = v;
  barrier();
  for (uint s = 128u; s > 0u; s >>= 1) {
    if (t < s) red[t] += red[t + s];
    barrier();
  }
  float r = red[0];
  barrier();
  return r;
}

void main() {
  uint job = group_index();
  if (job >= pc.jobs) return;
  uint img = job / pc.groups, g = job % pc.groups;
  uint cg = pc.channels / pc.groups;
  uint n = pc.pixels * cg;
  uint t = gl_LocalInvocationID.x;
  float s = 0.0;
  for (uint e = t; e < n; e += 256u) {
    uint p = e / cg, c = g * cg + e % cg;
    s += LD_F32(0, pc.off0 + (img * pc.pixels + p) * pc.stride0 + 4u * c);
  }
  float mean = reduce_sum(s) / float(n);
  float v = 0.0;
  for (uint e = t; e < n; e += 256u) {
    uint p = e / cg, c = g * cg + e % cg;
    float d = LD_F32(0, pc.off0 + (img * pc.pixels + p) * pc.stride0 + 4u * c) - mean;
    v = fma(d, d, v);
  }
  float var = reduce_sum(v) / float(n);
  if (t == 0u) {
    ST_F32(1, pc.off1 + 8u * job, mean);
    ST_F32(1, pc.off1 + 8u * job + 4u, 1.0 / sqrt(var + pc.eps));
  }
}
