#version 450
// The gated delta rule, token by token, as the CPU's recurrent form: one
// thread per (value head h, state column j) owns S[:, j] and walks the
// tokens in order (decay and S^T k, then the rank-1 update and S^T q), the
// sums over k_dim in the CPU's order.
// Tensors: 0 q, 1 k, 2 v, 3 g, 4 beta, 5 state, 6 out.
#include "common.glsl"
layout(local_size_x = 64) in;
layout(push_constant) uniform PC {
  uint off0, stride0, off1, stride1, off2, stride2, off3, stride3;
  uint off4, stride4, off5, stride5, off6, stride6;
  uint n, n_k_heads, n_v_heads, k_dim, v_dim;
} pc;

void main() {
  uint e = group_index() * 64u + gl_LocalInvocationID.x;
  if (e >= pc.n_v_heads * pc.v_dim) return;
  uint h = e / pc.v_dim, j = e % pc.v_dim;
  uint hk = h / (pc.n_v_heads / pc.n_k_heads);
  uint S = pc.off5 + h * pc.stride5 + 4u * j;  // S[i][j] at S + 4 * i * v_dim
  uint sv = 4u * pc.v_dim;
  for (uint t = 0u; t < pc.n; ++t) {
    uint q = pc.off0 + t * pc.stride0 + 4u * hk * pc.k_dim;
    uint k = pc.off1 + t * pc.stride1 + 4u * hk * pc.k_dim;
    float decay = exp_acc(LD_F32(3, pc.off3 + t * pc.stride3 + 4u * h));
    float beta = LD_F32(4, pc.off4 + t * pc.stride4 + 4u * h);
    float kv = 0.0;
    for (uint i = 0u; i < pc.k_dim; ++i) {
      float s = LD_F32(5, S + i * sv) * decay;
      ST_F32(5, S + i * sv, s);
      kv += s * LD_F32(1, k + 4u * i);
    }
    float d = (LD_F32(2, pc.off2 + t * pc.stride2 + 4u * (h * pc.v_dim + j)) - kv) * beta;
    float o = 0.0;
    for (uint i = 0u; i < pc.k_dim; ++i) {
      float s = LD_F32(5, S + i * sv) + LD_F32(1, k + 4u * i) * d;
      ST_F32(5, S + i * sv, s);
      o += s * LD_F32(0, q + 4u * i);
    }
    ST_F32(6, pc.off6 + t * pc.stride6 + 4u * (h * pc.v_dim + j), o);
  }
}
