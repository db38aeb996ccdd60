#version 450
// Attention of one query head against the KV slots, one workgroup per
// (batch part, query, head): slots in chunks of 64 (one score per thread:
// visibility, q.k, scale, softcap, mask), an online softmax over the chunks,
// and each thread accumulating up to 8 of the head's value dims. A query
// that sees no slot gets zeros.
// Tensors: 0 q, 1 k, 2 v, 3 q_pos, 4 kv_pos, 5 mask, 6 q_span, 7 kv_span, 8 out.
#include "common.glsl"
#include "activation.glsl"
layout(local_size_x = 64) in;
layout(push_constant) uniform PC {
  uint off0, stride0, off1, stride1, off2, stride2, off3, stride3, off4, stride4;
  uint off5, stride5, off6, stride6, off7, stride7, off8, stride8;
  uint n_q, n_kv, n_heads, n_kv_heads, head_dim, v_head_dim, kv_type, flags;  // flags: bit 0 causal, 1 q_pos, 2 kv_pos, 3 mask, 4 spans
  float scale, softcap;
  int window;
} pc;

shared float qs[512];
shared float p[64];
shared float red[64];

void main() {
  uint g = group_index();
  uint h = g % pc.n_heads;
  uint bt = g / pc.n_heads;  // batch part * n_q + query
  uint b = bt / pc.n_q, t = bt % pc.n_q;
  uint tid = gl_LocalInvocationID.x;
  uint kvh = h / (pc.n_heads / pc.n_kv_heads);
  uint qrow = pc.off0 + bt * pc.stride0 + 4u * h * pc.head_dim;
  for (uint d = tid; d < pc.head_dim; d += 64u) qs[d] = LD_F32(0, qrow + 4u * d);
  bool causal = (pc.flags & 1u) != 0u;
  int qp = (pc.flags & 2u) != 0u ? LD_I32(3, pc.off3 + 4u * t) : int(t);
  int span = (pc.flags & 16u) != 0u ? LD_I32(6, pc.off6 + 4u * t) : 0;
  barrier();

  float m = -1.0 / 0.0, l = 0.0;
  float acc[8] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  uint kbase = pc.off1 + (b * pc.n_kv) * pc.stride1;
  uint vbase = pc.off2 + (b * pc.n_kv) * pc.stride2;
  uint esz = pc.kv_type == DT_F32 ? 4u : 2u;
  for (uint c0 = 0u; c0 < pc.n_kv; c0 += 64u) {
    uint i = c0 + tid;
    float s = -1.0 / 0.0;
    if (i < pc.n_kv) {
      int kp = (pc.flags & 4u) != 0u ? LD_I32(4, pc.off4 + 4u * i) : int(i);
      bool seen = false;
      if (kp >= 0) {
        bool same_span = span != 0 && LD_I32(7, pc.off7 + 4u * i) == span;
        seen = same_span || ((!causal || kp <= qp) && (pc.window <= 0 || qp - kp < pc.window));
      }
      float mk = (pc.flags & 8u) != 0u ? LD_F32(5, pc.off5 + t * pc.stride5 + 4u * i) : 0.0;
      if (seen && !(isinf(mk) && mk < 0.0)) {
        uint krow = kbase + i * pc.stride1 + esz * kvh * pc.head_dim;
        float dot = 0.0;
        for (uint d = 0u; d < pc.head_dim; ++d) {
          float kv;
          LD_ELEM(1, pc.kv_type, krow, d, kv);
          dot = fma(qs[d], kv, dot);
        }
        float v = pc.scale * dot;
        if (pc.softcap > 0.0) v = pc.softcap * tanh_safe(v / pc.softcap);
        s = v + mk;
      }
    }
    // The chunk's max.
    red[tid] = s;
    barrier();
    for (uint w = 32u; w > 0u; w >>= 1) {
      if (tid < w) red[tid] = max(red[tid], red[tid + w]);
      barrier();
    }
    float cm = red[0];
    barrier();
    if (isinf(cm) && cm < 0.0) continue;  // nothing visible in this chunk (uniform)
    float m_new = max(m, cm);
    float alpha = exp_acc(m - m_new);  // 0 on the first visible chunk (m = -inf)
    p[tid] = exp_acc(s - m_new);
    red[tid] = p[tid];
    barrier();
    for (uint w = 32u; w > 0u; w >>= 1) {
      if (tid < w) red[tid] += red[tid + w];
      barrier();
    }
    l = l * alpha + red[0];
    m = m_new;
    uint n_in = min(64u, pc.n_kv - c0);
    for (uint u = 0u; u < 8u; ++u) {
      uint d = tid + 64u * u;
      if (d >= pc.v_head_dim) break;
      float a = acc[u] * alpha;
      for (uint j = 0u; j < n_in; ++j) {
        if (p[j] == 0.0) continue;
        float vv;
        LD_ELEM(2, pc.kv_type, vbase + (c0 + j) * pc.stride2 + esz * kvh * pc.v_head_dim, d, vv);
        a = fma(p[j], vv, a);
      }
      acc[u] = a;
    }
    barrier();
  }
  uint orow = pc.off8 + bt * pc.stride8 + 4u * h * pc.v_head_dim;
  float inv = l > 0.0 ? 1.0 / l : 0.0;
  for (uint u = 0u; u < 8u; ++u) {
    uint d = tid + 64u * u;
    if (d >= pc.v_head_dim) break;
    ST_F32(8, orow + 4u * d, acc[u] * inv);
  }
}
