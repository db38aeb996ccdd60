#version 450
// 2-D convolution of channels-last images as an implicit GEMM: output
// pixels x output channels in 32 x 32 tiles (256 threads, 2 x 2 each),
// the reduction over (ky, kx, ci) in steps of 32 through shared memory, the
// input patch gathered on the fly (zero outside the image).
// Tensors: 0 x, 1 w (F32 / F16 / BF16), 2 bias, 3 out.
#include "common.glsl"
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform PC {
  uint off0, stride0, off1, stride1, off2, stride2, off3, stride3;
  uint height, width, cin, cout, kh, kw, stride_, pad, ho, wo, m, wtype, has_bias, tiles_n;
} pc;

shared float xs[32][33];
shared float ws[32][33];

void main() {
  uint g = group_index();
  uint tm = g / pc.tiles_n, tn = g % pc.tiles_n;
  if (tm * 32u >= pc.m) return;
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
  uint lin = ty * 16u + tx;
  uint k = pc.kh * pc.kw * pc.cin;
  float acc[2][2] = {{0.0, 0.0}, {0.0, 0.0}};
  for (uint k0 = 0u; k0 < k; k0 += 32u) {
    for (uint e = lin; e < 1024u; e += 256u) {
      uint r = e / 32u, c = e % 32u;
      uint p = k0 + c;
      uint row = tm * 32u + r;
      float xv = 0.0;
      if (row < pc.m && p < k) {
        uint img = row / (pc.ho * pc.wo), oy = (row / pc.wo) % pc.ho, ox = row % pc.wo;
        uint ci = p % pc.cin, kx = (p / pc.cin) % pc.kw, ky = p / (pc.cin * pc.kw);
        int iy = int(oy * pc.stride_ + ky) - int(pc.pad);
        int ix = int(ox * pc.stride_ + kx) - int(pc.pad);
        if (iy >= 0 && iy < int(pc.height) && ix >= 0 && ix < int(pc.width)) {
          uint src = (img * pc.height + uint(iy)) * pc.width + uint(ix);
          xv = LD_F32(0, pc.off0 + src * pc.stride0 + 4u * ci);
        }
      }
      xs[r][c] = xv;
      uint col = tn * 32u + r;
      float wv = 0.0;
      if (col < pc.cout && p < k) LD_ELEM(1, pc.wtype, pc.off1 + col * pc.stride1, p, wv);
      ws[r][c] = wv;
    }
    barrier();
    for (uint a = 0u; a < 2u; ++a) {
      for (uint b = 0u; b < 2u; ++b) {
        uint r = ty + 16u * a, c = tx + 16u * b;
        float sum = acc[a][b];
        for (uint q = 0u; q < 32u; ++q) sum = fma(xs[r][q], ws[c][q], sum);
        acc[a][b] = sum;
      }
    }
    barrier();
  }
  for (uint a = 0u; a < 2u; ++a) {
    for (uint b = 0u; b < 2u; ++b) {
      uint row = tm * 32u + ty + 16u * a, col = tn * 32u + tx + 16u * b;
      if (row < pc.m && col < pc.cout) {
        float y = acc[a][b];
        if (pc.has_bias != 0u) y += LD_F32(2, pc.off2 + 4u * col);
        ST_F32(3, pc.off3 + row * pc.stride3 + 4u * col, y);
      }
    }
  }
}
