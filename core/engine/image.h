// Pictures the engine makes (text-to-image models) and writes (codec plugins).
#ifndef OXINFER_CORE_ENGINE_IMAGE_H_
#define OXINFER_CORE_ENGINE_IMAGE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "oxinfer/abi_common.h"

namespace oxinfer::engine {

// 8-bit pixels, `height` rows of width * channels bytes (channels 1, 3 or 4).
struct Image {
  int32_t width = 0, height = 0, channels = 3;
  std::vector<uint8_t> pixels;
};

// The C view of an Image, borrowed for a call into a codec.
inline oxi_image ImageView(const Image& image) {
  oxi_image view = {};
  view.struct_size = sizeof view;
  view.width = image.width;
  view.height = image.height;
  view.channels = image.channels;
  view.pixels = const_cast<uint8_t*>(image.pixels.data());
  return view;
}

struct ImageRequest {
  std::string prompt;
  std::string negative_prompt;
  int32_t steps = 0;              // 0: the model's default
  float guidance = -1.0f;         // < 0: the model's default
  std::string sampler;            // "": the model's default; "euler" or "euler_a"
  int32_t width = 0, height = 0;  // 0: the model's native size
  uint64_t seed = 0;
  // Called after each denoising step, on the thread that called
  // GenerateImage; returning false cancels (GenerateImage then fails with
  // CANCELLED).
  std::function<bool(int32_t step, int32_t total)> progress;
};

}  // namespace oxinfer::engine

#endif  // OXINFER_CORE_ENGINE_IMAGE_H_
