// What a model receives from a media file: images as transformers'
// load_image gives them (Pillow: EXIF orientation, then convert("RGB")) and
// audio as transformers.audio_utils.load_audio(path, sampling_rate,
// backend="soundfile") gives it (the mean of the channels, then soxr at its HQ
// setting, padded or cut to ceil(frames * rate / source rate)).
//
// The decoder is the codec plugin whose sniff() scores the file's bytes
// highest (never the extension); errors name the file, the format and the
// codec. Limits are checked against the file's header before the pixels or
// samples are allocated (decompression bombs).
#ifndef OXINFER_CORE_MEDIA_MEDIA_H_
#define OXINFER_CORE_MEDIA_MEDIA_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/plugin_registry.h"

namespace oxinfer::media {

struct DecodeOptions {
  int64_t max_pixels = 178956970;     // Pillow's MAX_IMAGE_PIXELS
  double max_audio_seconds = 3600.0;  // one hour
  uint64_t max_file_bytes = uint64_t{1} << 30;
};

struct RgbImage {
  int32_t width = 0, height = 0;
  std::vector<uint8_t> pixels;  // height rows of width * 3 bytes
  std::string format;           // what the codec decoded ("jpeg progressive ycbcr 4:2:0")
  std::string codec;            // the plugin's name
};

struct Audio {
  std::vector<float> samples;  // mono, at sample_rate
  int32_t sample_rate = 0;
  int32_t source_rate = 0;      // as stored
  int32_t source_channels = 0;  // as stored
  int64_t source_frames = 0;
  std::string format;
  std::string codec;
  double seconds() const { return sample_rate > 0 ? double(samples.size()) / sample_rate : 0; }
};

// Files. `path` names the file in every message.
absl::StatusOr<RgbImage> LoadImage(const PluginRegistry& registry, const std::string& path,
                                   const DecodeOptions& options = {});
absl::StatusOr<Audio> LoadAudio(const PluginRegistry& registry, const std::string& path,
                                int32_t sampling_rate = 16000, const DecodeOptions& options = {});

// Bytes already in memory; `name` stands for the file in messages.
absl::StatusOr<RgbImage> DecodeImage(const PluginRegistry& registry, absl::string_view bytes,
                                     const std::string& name, const DecodeOptions& options = {});
absl::StatusOr<Audio> DecodeAudio(const PluginRegistry& registry, absl::string_view bytes,
                                  const std::string& name, int32_t sampling_rate = 16000,
                                  const DecodeOptions& options = {});

// Whether the best-scoring codec for these bytes decodes images or audio:
// OXI_MEDIA_IMAGE, OXI_MEDIA_AUDIO, or 0 when no codec recognises them.
uint32_t SniffMedia(const PluginRegistry& registry, absl::string_view bytes);

}  // namespace oxinfer::media

#endif  // OXINFER_CORE_MEDIA_MEDIA_H_
