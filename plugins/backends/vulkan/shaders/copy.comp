#version 450
// dst = src element by element, F32 / F16 / BF16 to F32 (copy), a constant
// (fill, src absent), or src rows scattered to dst rows ids[i] (set_rows).
// 16-bit destinations are written a word (two elements) per thread so that
// no two threads share a word; their row strides and offsets are multiples
// of 4 (supports() checks). Tensors: 0 src, 1 ids, 2 dst.
#include "common.glsl"
layout(local_size_x = 256) in;
layout(push_constant) uniform PC {
  uint off0, stride0, off1, stride1, off2, stride2;
  uint rows, cols, src_type, dst_type, mode, dst_rows;  // mode 0 copy, 1 fill, 2 set_rows
  float value;
} pc;

float src_at(uint r, uint c) {
  if (pc.mode == 1u) return pc.value;
  float v;
  LD_ELEM(0, pc.src_type, pc.off0 + r * pc.stride0, c, v);
  return v;
}

void main() {
  uint per = pc.dst_type == DT_F32 || pc.dst_type == DT_I32 ? 1u : 2u;
  uint wcols = (pc.cols + per - 1u) / per;
  uint e = group_index() * 256u + gl_LocalInvocationID.x;
  // set_rows: one thread per column walks the rows in order, so that of
  // repeated ids the last row wins, as the op says.
  uint n_rows = pc.mode == 2u ? 1u : pc.rows;
  if (e >= n_rows * wcols) return;
  uint r0 = e / wcols, c = (e % wcols) * per;
  uint r_end = pc.mode == 2u ? pc.rows : r0 + 1u;
  for (uint r = r0; r < r_end; ++r) {
  uint dr = r;
  if (pc.mode == 2u) {
    int id = LD_I32(1, pc.off1 + 4u * r);
    if (id < 0 || uint(id) >= pc.dst_rows) {
      err.error_flag = 1u;
      continue;
    }
    dr = uint(id);
  }
  uint dst = pc.off2 + dr * pc.stride2;
  if (pc.dst_type == DT_I32) {
    WORD(2, dst + 4u * c) = uint(int(pc.value));
  } else if (per == 1u) {
    ST_F32(2, dst + 4u * c, src_at(r, c));
  } else {
    uint lo_b = pc.dst_type == DT_F16 ? f32_to_f16(src_at(r, c)) : f32_to_bf16(src_at(r, c));
    uint b = dst + 2u * c;
    if (c + 1u < pc.cols) {
      uint hi = pc.dst_type == DT_F16 ? f32_to_f16(src_at(r, c + 1u)) : f32_to_bf16(src_at(r, c + 1u));
      WORD(2, b) = lo_b | (hi << 16);
    } else {
      // The row's last element alone: keep the other half of its word.
      uint old = WORD(2, b);
      WORD(2, b) = (old & 0xffff0000u) | lo_b;
    }
  }
  }
}
