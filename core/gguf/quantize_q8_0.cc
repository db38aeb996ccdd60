#include "core/gguf/quantize_q8_0.h"

#include <cmath>
#include <cstring>

#include "oxinfer/dtype.h"

namespace oxinfer::gguf {

namespace {

// roundf (half away from zero) of a finite |r| <= 127, inline: the library
// call was a third of a K-quant file's load time. r - trunc(r) is exact there.
inline int8_t RoundQuant(float r) {
  const int i = static_cast<int>(r);
  const float frac = r - static_cast<float>(i);
  return static_cast<int8_t>(i + (frac >= 0.5f) - (frac <= -0.5f));
}

}  // namespace

void QuantizeQ8_0(const float* x, int64_t n, uint8_t* out) {
  for (int64_t b = 0; b < n / kQ8_0BlockElems; ++b, x += kQ8_0BlockElems) {
    // fmax's rule (a NaN is passed over), written so that it inlines.
    float amax = 0.0f;
    for (int j = 0; j < kQ8_0BlockElems; ++j) {
      const float v = std::fabs(x[j]);
      amax = v > amax ? v : amax;
    }
    // The scale is taken in f32 and stored as f16, as the reference does.
    const float d = amax / 127.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    const uint16_t h = oxi_f32_to_f16(d);
    uint8_t* block = out + b * kQ8_0BlockBytes;
    std::memcpy(block, &h, 2);
    for (int j = 0; j < kQ8_0BlockElems; ++j) {
      // Bounded first: a subnormal scale makes id infinite, and a NaN value
      // gives 0, where a cast would be undefined.
      float r = x[j] * id;
      r = r > 127.0f ? 127.0f : r;
      r = r < -127.0f ? -127.0f : r;
      block[2 + j] = static_cast<uint8_t>(r == r ? RoundQuant(r) : 0);
    }
  }
}

}  // namespace oxinfer::gguf
