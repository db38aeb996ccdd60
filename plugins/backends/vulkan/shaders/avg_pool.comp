#version 450
// Average pooling of channels-last images over factor x factor windows: the
// window summed in row-major order, then times 1 / factor^2 (as the CPU).
// Tensors: 0 x, 1 out.
#include "common.glsl"
layout(local_size_x = 256) in;
layout(push_constant) uniform PC {
  uint off0, stride0, off1, stride1;
  uint batch, height, width, factor, channels;
  float inv_area;
} pc;

void main() {
  uint ho = pc.height / pc.factor, wo = pc.width / pc.factor;
  uint e = group_index() * 256u + gl_LocalInvocationID.x;
  if (e >= pc.batch * ho * wo * pc.channels) return;
  uint c = e % pc.channels, p = e / pc.channels;
  uint img = p / (ho * wo), y = (p / wo) % ho, x = p % wo;
  float sum = 0.0;
  for (uint i = 0u; i < pc.factor; ++i) {
    uint row = (img * pc.height + y * pc.factor + i) * pc.width + x * pc.factor;
    for (uint j = 0u; j < pc.factor; ++j) {
      sum += LD_F32(0, pc.off0 + (row + j) * pc.stride0 + 4u * c);
    }
  }
  ST_F32(1, pc.off1 + p * pc.stride1 + 4u * c, sum * pc.inv_area);
}
