#version 450
// out = f(x), scale (mode 1: out = x * scale + bias) and clamp (mode 2:
// lo = scale, hi = bias, NaN passes through as on the CPU): one thread per
// element.
// Tensors: 0 x, 1 out.
#include "common.glsl"
#include "activation.glsl"
layout(local_size_x = 256) in;
layout(push_constant) uniform PC {
  uint off0, stride0, off1, stride1;
  uint rows, cols, fn, mode;
  float scale, bias;
} pc;

void main() {
  uint e = group_index() * 256u + gl_LocalInvocationID.x;
  if (e >= pc.rows * pc.cols) return;
  uint r = e / pc.cols, c = e % pc.cols;
  float v = LD_F32(0, pc.off0 + r * pc.stride0 + 4u * c);
  if (pc.mode == 1u) {
    v = v * pc.scale + pc.bias;
  } else if (pc.mode == 2u) {
    v = v < pc.scale ? pc.scale : (v > pc.bias ? pc.bias : v);
  } else {
    v = activate(pc.fn, v);
  }
  ST_F32(1, pc.off1 + r * pc.stride1 + 4u * c, v);
}
