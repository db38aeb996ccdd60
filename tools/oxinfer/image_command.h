// The CLI's image mode: a text-to-image request with a progress bar over the
// denoising steps, written to --output through the codec its extension names.
#ifndef OXINFER_TOOLS_OXINFER_IMAGE_COMMAND_H_
#define OXINFER_TOOLS_OXINFER_IMAGE_COMMAND_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "core/engine/engine.h"

namespace oxinfer {

struct ImageFlags {
  std::string prompt;
  std::string negative;
  int steps = 0;
  float guidance = -1.0f;
  std::string sampler;
  std::string size;  // "WIDTHxHEIGHT" or empty
  uint64_t seed = 0;
  std::string output = "out.png";
  bool profile = false;
};

absl::Status RunImage(engine::Engine& engine, const ImageFlags& flags);

}  // namespace oxinfer

#endif  // OXINFER_TOOLS_OXINFER_IMAGE_COMMAND_H_
