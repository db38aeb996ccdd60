#include "core/gguf/quantize_q8_0.h"

#include <cmath>
#include <cstring>

#include "oxinfer/dtype.h"

namespace oxinfer::gguf {

void QuantizeQ8_0(const float* x, int64_t n, uint8_t* out) {
  for (int64_t b = 0; b < n / kQ8_0BlockElems; ++b, x += kQ8_0BlockElems) {
    float amax = 0.0f;
    for (int j = 0; j < kQ8_0BlockElems; ++j) amax = std::fmax(amax, std::fabs(x[j]));
    // The scale is taken in f32 and stored as f16, as the reference does.
    const float d = amax / 127.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    const uint16_t h = oxi_f32_to_f16(d);
    uint8_t* block = out + b * kQ8_0BlockBytes;
    std::memcpy(block, &h, 2);
    for (int j = 0; j < kQ8_0BlockElems; ++j) {
      block[2 + j] = static_cast<uint8_t>(static_cast<int8_t>(std::roundf(x[j] * id)));
    }
  }
}

}  // namespace oxinfer::gguf
