#version 450
// y = x w^T (+ bias) for many rows (prefill): 32 x 32 output tiles, 256
// threads of 2 x 2 outputs each, k in steps of 32 through shared memory.
// Block weights multiply Q8_0-quantised activations (tensor 4): each step is
// one block, whose integer dot is exact in f32 (|sum| < 2^24), times both
// scales, as the CPU does per block.
// Tensors: 0 x, 1 w, 2 bias (or the dummy), 3 y, 4 quantised x.
#include "common.glsl"
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform PC {
  uint off0, stride0, off1, stride1, off2, stride2, off3, stride3, off4, stride4;
  uint m, n, k, wtype, has_bias, tiles_n;
} pc;

shared float xs[32][33];
shared float ws[32][33];
shared float xd[32];
shared float wd[32];

void main() {
  uint g = group_index();
  uint tm = g / pc.tiles_n, tn = g % pc.tiles_n;
  if (tm * 32u >= pc.m) return;
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
  uint lin = ty * 16u + tx;
  bool quant = pc.wtype == DT_Q8_0 || pc.wtype == DT_Q4_0;
  uint nb = pc.k / 32u;
  float acc[2][2] = {{0.0, 0.0}, {0.0, 0.0}};
  uint steps = (pc.k + 31u) / 32u;
  for (uint s = 0u; s < steps; ++s) {
    // Load 32 x 32 of x and of w: 4 elements per thread each.
    for (uint e = lin; e < 1024u; e += 256u) {
      uint r = e / 32u, c = e % 32u;
      uint row = tm * 32u + r, p = s * 32u + c;
      float xv = 0.0;
      if (row < pc.m && p < pc.k) {
        if (quant) {
          xv = float(sext8(LD_U8(4, pc.off4 + (row * nb + s) * 36u + 4u + c)));
        } else {
          xv = LD_F32(0, pc.off0 + row * pc.stride0 + 4u * p);
        }
      }
      xs[r][c] = xv;
      uint col = tn * 32u + r;
      float wv = 0.0;
      if (col < pc.n && p < pc.k) {
        uint wrow = pc.off1 + col * pc.stride1;
        if (pc.wtype == DT_Q8_0) {
          wv = float(sext8(LD_U8(1, wrow + s * 34u + 2u + c)));
        } else if (pc.wtype == DT_Q4_0) {
          uint byte_ = LD_U8(1, wrow + s * 18u + 2u + (c & 15u));
          wv = float(int(c < 16u ? (byte_ & 15u) : (byte_ >> 4)) - 8);
        } else {
          LD_ELEM(1, pc.wtype, wrow, p, wv);
        }
      }
      ws[r][c] = wv;
    }
    if (quant && lin < 64u) {
      uint r = lin & 31u;
      if (lin < 32u) {
        uint row = tm * 32u + r;
        xd[r] = row < pc.m ? LD_F32(4, pc.off4 + (row * nb + s) * 36u) : 0.0;
      } else {
        uint col = tn * 32u + r;
        wd[r] = col < pc.n
                    ? LD_F16(1, pc.off1 + col * pc.stride1 + s * (pc.wtype == DT_Q8_0 ? 34u : 18u))
                    : 0.0;
      }
    }
    barrier();
    for (uint a = 0u; a < 2u; ++a) {
      for (uint b = 0u; b < 2u; ++b) {
        uint r = ty + 16u * a, c = tx + 16u * b;
        float sum = quant ? 0.0 : acc[a][b];
        for (uint p = 0u; p < 32u; ++p) sum = fma(xs[r][p], ws[c][p], sum);
        acc[a][b] = quant ? acc[a][b] + sum * (xd[r] * wd[c]) : sum;
      }
    }
    barrier();
  }
  for (uint a = 0u; a < 2u; ++a) {
    for (uint b = 0u; b < 2u; ++b) {
      uint row = tm * 32u + ty + 16u * a, col = tn * 32u + tx + 16u * b;
      if (row < pc.m && col < pc.n) {
        float y = acc[a][b];
        if (pc.has_bias != 0u) y += LD_F32(2, pc.off2 + 4u * col);
        ST_F32(3, pc.off3 + row * pc.stride3 + 4u * col, y);
      }
    }
  }
}
