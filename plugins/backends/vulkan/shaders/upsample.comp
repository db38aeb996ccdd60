#version 450
// Nearest upsampling of channels-last images by an integer factor.
// Tensors: 0 x, 1 out.
#include "common.glsl"
layout(local_size_x = 256) in;
layout(push_constant) uniform PC {
  uint off0, stride0, off1, stride1;
  uint batch, height, width, factor, channels;
} pc;

void main() {
  uint ho = pc.height * pc.factor, wo = pc.width * pc.factor;
  uint e = group_index() * 256u + gl_LocalInvocationID.x;
  if (e >= pc.batch * ho * wo * pc.channels) return;
  uint c = e % pc.channels, p = e / pc.channels;
  uint img = p / (ho * wo), y = (p / wo) % ho, x = p % wo;
  uint src = (img * pc.height + y / pc.factor) * pc.width + x / pc.factor;
  WORD(1, pc.off1 + p * pc.stride1 + 4u * c) = WORD(0, pc.off0 + src * pc.stride0 + 4u * c);
}
