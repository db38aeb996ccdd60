#version 450
// out = a op b with b broadcast over rows and/or columns; and GLU
// (out = act(a) * b, same shapes). Tensors: 0 a, 1 b, 2 out.
#include "common.glsl"
#include "activation.glsl"
layout(local_size_x = 256) in;
layout(push_constant) uniform PC {
  uint off0, stride0, off1, stride1, off2, stride2;
  uint rows, cols, b_rows, b_cols, fn, glu_act;
} pc;

void main() {
  uint e = group_index() * 256u + gl_LocalInvocationID.x;
  if (e >= pc.rows * pc.cols) return;
  uint r = e / pc.cols, c = e % pc.cols;
  float a = LD_F32(0, pc.off0 + r * pc.stride0 + 4u * c);
  uint br = pc.b_rows == 1u ? 0u : r, bc = pc.b_cols == 1u ? 0u : c;
  float b = LD_F32(1, pc.off1 + br * pc.stride1 + 4u * bc);
  float v;
  if (pc.fn == 0u) {
    v = activate(pc.glu_act, a) * b;
  } else if (pc.fn == 1u) {
    v = a + b;
  } else if (pc.fn == 2u) {
    v = a - b;
  } else if (pc.fn == 3u) {
    v = a * b;
  } else {
    v = a / b;
  }
  ST_F32(2, pc.off2 + r * pc.stride2 + 4u * c, v);
}
