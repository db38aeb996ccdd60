// What every compute shader of the Vulkan backend shares.
//
// Bindings: set 0, binding 0 is an array of storage buffers, one per tensor
// operand of the op (in the op's order), each bound at the operand's offset
// rounded down to the device's alignment; the push constants give the rest
// of the offset (OFF_i) and the row stride in bytes (STRIDE_i). Binding 1 is
// a word the shaders set when an op's data is invalid (an index out of
// range), checked by the host after the submission.
//
// Every buffer is read as 32-bit words: the 16-bit and 8-bit types (f16,
// bf16, the Q8_0 / Q4_0 blocks) are unpacked from them, which needs no
// 8/16-bit storage feature and works at the 2-byte offsets of the block types.
#extension GL_GOOGLE_include_directive : require

layout(std430, set = 0, binding = 0) buffer Tensors { uint w[]; } buf[10];
layout(std430, set = 0, binding = 1) buffer ErrorWord { uint error_flag; } err;

#define DT_F32 1u
#define DT_BF16 2u
#define DT_F16 3u
#define DT_Q8_0 4u
#define DT_Q4_0 5u
#define DT_I32 8u

#define WORD(T, b) buf[T].w[(b) >> 2]
#define LD_F32(T, b) uintBitsToFloat(WORD(T, b))
#define LD_I32(T, b) int(WORD(T, b))
#define LD_U16(T, b) ((WORD(T, b) >> (((b) & 2u) * 8u)) & 0xffffu)
#define LD_U8(T, b) ((WORD(T, b) >> (((b) & 3u) * 8u)) & 0xffu)
#define LD_F16(T, b) unpackHalf2x16(LD_U16(T, b)).x
#define LD_BF16(T, b) uintBitsToFloat(LD_U16(T, b) << 16)
#define ST_F32(T, b, v) WORD(T, b) = floatBitsToUint(v)

// A signed byte as int.
int sext8(uint v) { return int(v << 24) >> 24; }

// Element i of a row starting at byte `row` of a float or block type, as f32
// (blocks dequantised: d * q, as the CPU does).
#define LD_ELEM(T, dt, row, i, out)                                          \
  {                                                                          \
    uint i_ = (i);                                                           \
    if ((dt) == DT_F32) {                                                    \
      out = LD_F32(T, (row) + 4u * i_);                                      \
    } else if ((dt) == DT_BF16) {                                            \
      out = LD_BF16(T, (row) + 2u * i_);                                     \
    } else if ((dt) == DT_F16) {                                             \
      out = LD_F16(T, (row) + 2u * i_);                                      \
    } else if ((dt) == DT_Q8_0) {                                            \
      uint bb_ = (row) + (i_ >> 5) * 34u;                                    \
      out = LD_F16(T, bb_) * float(sext8(LD_U8(T, bb_ + 2u + (i_ & 31u))));  \
    } else {                                                                 \
      uint bb_ = (row) + (i_ >> 5) * 18u;                                    \
      uint j_ = i_ & 31u;                                                    \
      uint byte_ = LD_U8(T, bb_ + 2u + (j_ & 15u));                          \
      uint nib_ = j_ < 16u ? (byte_ & 15u) : (byte_ >> 4);                   \
      out = LD_F16(T, bb_) * float(int(nib_) - 8);                           \
    }                                                                        \
  }

// f32 -> f16 bits, round to nearest even (as the CPU's oxi_f32_to_f16),
// written out so that no driver's rounding mode matters.
uint f32_to_f16(float f) {
  uint x = floatBitsToUint(f);
  uint sign = (x >> 16) & 0x8000u;
  uint e = (x >> 23) & 0xffu;
  uint m = x & 0x7fffffu;
  if (e == 0xffu) return sign | 0x7c00u | (m != 0u ? 0x200u : 0u);
  int ue = int(e) - 127 + 15;
  if (ue >= 31) return sign | 0x7c00u;
  if (ue <= 0) {
    if (ue < -10) return sign;
    m |= 0x800000u;
    uint shift = uint(14 - ue);
    uint h = m >> shift;
    uint rem = m & ((1u << shift) - 1u);
    uint half_ = 1u << (shift - 1u);
    if (rem > half_ || (rem == half_ && (h & 1u) != 0u)) h += 1u;
    return sign | h;
  }
  uint h = (uint(ue) << 10) | (m >> 13);
  uint rem = m & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u) != 0u)) h += 1u;
  return sign | h;
}

// f32 -> bf16 bits, round to nearest even (NaN kept quiet).
uint f32_to_bf16(float f) {
  uint x = floatBitsToUint(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (x >> 16) | 0x40u;
  return (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
}

// roundf: half away from zero, exactly (v - trunc(v) is exact).
float round_away(float v) {
  float t = trunc(v);
  if (abs(v - t) >= 0.5) t += sign(v);
  return t;
}

// lavapipe does not fuse fma() (it rounds the product), so the argument
// reductions below use Cephes' split constants, whose leading parts have so
// few bits that k * part is exact in f32 without fma.

// exp(x) to about an ulp: x = k ln2 + r with |r| <= ln2 / 2, Cephes' expf
// polynomial on r, then scaled by 2^k. The driver's exp loses digits
// (lavapipe: exp(87) off by 2e-6 relative), so it is not used at all.
float exp_acc(float x) {
  if (isnan(x)) return x;
  if (x > 88.8) return 1.0 / 0.0;
  if (x < -104.0) return 0.0;
  float k = round(x * 1.4426950408889634);
  precise float r = x - k * 0.693359375;
  r = r - k * -2.12194440e-4;
  float p = 1.9875691500e-4;
  p = p * r + 1.3981999507e-3;
  p = p * r + 8.3334519073e-3;
  p = p * r + 4.1665795894e-2;
  p = p * r + 1.6666665459e-1;
  p = p * r + 5.0000001201e-1;
  float e = p * (r * r) + r + 1.0;
  // 2^k in two steps: k may be -149 .. 128, past a float's exponent range.
  int ki = int(k);
  int k1 = ki / 2;
  return e * uintBitsToFloat(uint(k1 + 127) << 23) * uintBitsToFloat(uint(ki - k1 + 127) << 23);
}

// sin and cos to about an ulp for |angle| up to ~1e4 (then gracefully
// less): angle = j pi/2 + y, |y| <= pi/4 (Cephes' three-part pi/2), and
// Cephes' sinf / cosf polynomials on y. The driver's sin / cos (and any
// reduction with a full-precision 2 pi, as fma is not fused) are off by up
// to 1.4e-5 at angle 1000 on lavapipe.
void sincos_acc(float angle, out float s, out float c) {
  float j = round(angle * 0.6366197723675814);
  precise float y = angle - j * 1.5703125;
  y = y - j * 4.837512969970703125e-4;
  y = y - j * 7.54978995489188216e-8;
  float z = y * y;
  float sp = ((-1.9515295891e-4 * z + 8.3321608736e-3) * z - 1.6666654611e-1) * z * y + y;
  float cp = ((2.443315711809948e-5 * z - 1.388731625493765e-3) * z + 4.166664568298827e-2) *
                 z * z - 0.5 * z + 1.0;
  int q = int(j) & 3;  // two's complement: j = -1 is quadrant 3
  if (q == 0) { s = sp; c = cp; }
  else if (q == 1) { s = cp; c = -sp; }
  else if (q == 2) { s = -sp; c = -cp; }
  else { s = -cp; c = sp; }
}

// The linear workgroup index over a 2-D grid (the host splits large counts).
uint group_index() { return gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x; }
