#version 450
// Rotary embedding, rotate-half pairs (i, i + rot_dim / 2) of every head;
// dims past rot_dim copied. One thread per (token, head, pair or passed dim).
// sin / cos written out (sincos_acc): the driver's are not accurate enough.
// Tensors: 0 x, 1 pos, 2 inv_freq, 3 out.
#include "common.glsl"
layout(local_size_x = 256) in;
layout(push_constant) uniform PC {
  uint off0, stride0, off1, stride1, off2, stride2, off3, stride3;
  uint n_tok, n_heads, head_dim, rot_dim;
} pc;

void main() {
  uint half_ = pc.rot_dim / 2u;
  uint per_head = pc.head_dim - half_;  // pairs, then the passed-through dims
  uint e = group_index() * 256u + gl_LocalInvocationID.x;
  if (e >= pc.n_tok * pc.n_heads * per_head) return;
  uint t = e / (pc.n_heads * per_head);
  uint h = (e / per_head) % pc.n_heads;
  uint i = e % per_head;
  uint x = pc.off0 + t * pc.stride0 + 4u * h * pc.head_dim;
  uint o = pc.off3 + t * pc.stride3 + 4u * h * pc.head_dim;
  if (i < half_) {
    float angle = float(LD_I32(1, pc.off1 + 4u * t)) * LD_F32(2, pc.off2 + 4u * i);
    float c, s;
    sincos_acc(angle, s, c);
    float x0 = LD_F32(0, x + 4u * i), x1 = LD_F32(0, x + 4u * (i + half_));
    ST_F32(3, o + 4u * i, x0 * c - x1 * s);
    ST_F32(3, o + 4u * (i + half_), x1 * c + x0 * s);
  } else {
    uint d = i + half_;  // i in [half, head_dim - half): dims rot_dim .. head_dim
    ST_F32(3, o + 4u * d, LD_F32(0, x + 4u * d));
  }
}
