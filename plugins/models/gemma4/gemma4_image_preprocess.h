// Gemma 4's image preprocessing, as transformers' Gemma4ImageProcessor (the
// torchvision backend, which AutoProcessor picks when torchvision is
// installed) computes it: an aspect-preserving resize into a grid of
// patch_size patches whose sides are multiples of pooling_kernel_size patches,
// within max_soft_tokens * pooling_kernel_size^2 patches (torchvision's
// antialiased bicubic, which on the CPU runs torch's 8-bit kernel), rescale
// (and normalisation where the config asks), then patches in raster order,
// each patch_size x patch_size x 3 values in (row, column, channel) order, with
// their (x, y) grid positions.
#ifndef OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_IMAGE_PREPROCESS_H_
#define OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_IMAGE_PREPROCESS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "oxinfer/sdk/json.hpp"
#include "oxinfer/sdk/status.hpp"

namespace oxinfer {
namespace gemma4 {

// The soft-token budgets the processor accepts.
inline constexpr int kSupportedSoftTokens[] = {70, 140, 280, 560, 1120};

struct ImageProcessorConfig {
  int patch_size = 16;
  int pooling_kernel_size = 3;
  int max_soft_tokens = 280;  // the default budget
  bool do_resize = true;
  bool do_rescale = true;
  double rescale_factor = 1.0 / 255.0;
  bool do_normalize = false;
  float mean[3] = {0.f, 0.f, 0.f};
  float std[3] = {1.f, 1.f, 1.f};
};

// processor_config.json's "image_processor" (or a preprocessor_config.json
// root); absent fields take Gemma4ImageProcessor's defaults. Resampling other
// than bicubic (3) is refused.
sdk::StatusOr<ImageProcessorConfig> ParseImageProcessorConfig(const sdk::Json& c);

// OK for a budget in kSupportedSoftTokens, else an error naming the values.
sdk::Status CheckSoftTokenBudget(int max_soft_tokens);

// get_aspect_ratio_preserving_size: the resized height and width.
sdk::Status AspectPreservingSize(int64_t height, int64_t width, int patch_size, int64_t max_patches,
                                 int pooling_kernel_size, int64_t* target_height,
                                 int64_t* target_width);

// An 8-bit image: height rows of width pixels of `channels` bytes (1: grey,
// 3: RGB, 4: RGBA).
struct ImageView {
  const uint8_t* pixels = nullptr;
  int64_t width = 0, height = 0;
  int channels = 3;
};

struct ImagePatches {
  int64_t height = 0, width = 0;    // after the resize
  int64_t grid_w = 0, grid_h = 0;   // patches per row / column
  int64_t n_soft_tokens = 0;        // patches / pooling_kernel_size^2
  int64_t patch_dim = 0;            // patch_size^2 * 3
  std::vector<uint8_t> resized;     // [height][width][3], the resize's 8-bit output
  std::vector<float> pixel_values;  // [grid_h * grid_w][patch_dim]
  std::vector<int32_t> positions;   // [grid_h * grid_w][2]: (x, y)
};

// Converts to RGB as transformers' convert_to_rgb does (grey replicated; RGBA
// composited over white), resizes, rescales and patchifies.
sdk::StatusOr<ImagePatches> PreprocessImage(const ImageView& image, const ImageProcessorConfig& cfg,
                                            int max_soft_tokens);

// torchvision's resize(antialias=True, BICUBIC) of an 8-bit RGB image
// ([height][width][3]) on the CPU: torch's native uint8 kernel.
std::vector<uint8_t> ResizeBicubicAntialias(const std::vector<uint8_t>& rgb, int64_t height,
                                            int64_t width, int64_t out_height, int64_t out_width);

}  // namespace gemma4
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_IMAGE_PREPROCESS_H_
