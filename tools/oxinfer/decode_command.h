// oxinfer --decode FILE -o OUT.png|OUT.wav: writes what a model receives from
// a media file (core/media): the RGB pixels of an image after orientation and
// conversion, or the 16 kHz mono audio as 32-bit float WAV; prints the
// format, the size or duration, and the codec that decoded it.
#ifndef OXINFER_TOOLS_OXINFER_DECODE_COMMAND_H_
#define OXINFER_TOOLS_OXINFER_DECODE_COMMAND_H_

#include <string>

#include "absl/status/status.h"
#include "core/media/media.h"
#include "core/plugin_registry.h"

namespace oxinfer {

struct DecodeFlags {
  std::string input;
  std::string output;  // .wav: audio; any image format a codec writes: image
  media::DecodeOptions limits;
};

absl::Status RunDecode(const PluginRegistry& registry, const DecodeFlags& flags);

// A RIFF/WAVE file of IEEE float32 mono samples (format tag 3, with the
// 'fact' chunk the format requires).
std::string FloatWav(const std::vector<float>& samples, int32_t rate);

}  // namespace oxinfer

#endif  // OXINFER_TOOLS_OXINFER_DECODE_COMMAND_H_
