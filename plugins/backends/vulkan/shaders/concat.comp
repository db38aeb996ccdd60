#version 450
// out[r] = a[r] followed by b[r], 4-byte elements. Tensors: 0 a, 1 b, 2 out.
#include "common.glsl"
layout(local_size_x = 256) in;
layout(push_constant) uniform PC {
  uint off0, stride0, off1, stride1, off2, stride2;
  uint rows, ca, cb;
} pc;

void main() {
  uint cols = pc.ca + pc.cb;
  uint e = group_index() * 256u + gl_LocalInvocationID.x;
  if (e >= pc.rows * cols) return;
  uint r = e / cols, c = e % cols;
  uint v = c < pc.ca ? WORD(0, pc.off0 + r * pc.stride0 + 4u * c)
                     : WORD(1, pc.off1 + r * pc.stride1 + 4u * (c - pc.ca));
  WORD(2, pc.off2 + r * pc.stride2 + 4u * c) = v;
}
