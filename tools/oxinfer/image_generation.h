// Text to image for the CLI: runs a diffusion model plugin with a progress
// bar over the denoising steps and writes the picture through a codec plugin.
#ifndef OXINFER_TOOLS_OXINFER_IMAGE_GENERATION_H_
#define OXINFER_TOOLS_OXINFER_IMAGE_GENERATION_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "core/model_instance.h"
#include "core/plugin_registry.h"

namespace oxinfer {

struct ImageOptions {
  std::string prompt;
  std::string negative;
  int steps = 0;
  float guidance = -1.0f;
  std::string sampler;
  std::string size;  // "WIDTHxHEIGHT" or empty
  uint64_t seed = 0;
  std::string output = "out.png";
};

absl::Status RunImageGeneration(ModelInstance& model, const PluginRegistry& registry,
                                const ImageOptions& options);

// Encodes with the first loaded codec plugin that writes the file's format
// (from its extension) and writes the file.
absl::Status WriteImageFile(const PluginRegistry& registry, const oxi_image& image,
                            const std::string& path);

}  // namespace oxinfer

#endif  // OXINFER_TOOLS_OXINFER_IMAGE_GENERATION_H_
