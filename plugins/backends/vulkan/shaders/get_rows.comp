#version 450
// out[i] = table[ids[i]] as f32; an id outside the table sets the error word.
// Tensors: 0 table, 1 ids, 2 out.
#include "common.glsl"
layout(local_size_x = 256) in;
layout(push_constant) uniform PC {
  uint off0, stride0, off1, stride1, off2, stride2;
  uint n, k, dtype, table_rows;
} pc;

void main() {
  uint e = group_index() * 256u + gl_LocalInvocationID.x;
  if (e >= pc.n * pc.k) return;
  uint i = e / pc.k, c = e % pc.k;
  int id = LD_I32(1, pc.off1 + 4u * i);
  if (id < 0 || uint(id) >= pc.table_rows) {
    err.error_flag = 1u;
    return;
  }
  float v;
  LD_ELEM(0, pc.dtype, pc.off0 + uint(id) * pc.stride0, c, v);
  ST_F32(2, pc.off2 + i * pc.stride2 + 4u * c, v);
}
