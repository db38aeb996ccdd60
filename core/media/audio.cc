// LoadAudio / DecodeAudio: the chosen codec's decode_audio (every channel at
// the stored rate), then transformers' _load_audio_soundfile steps: the mean
// of the channels in float32 (numpy's order: channel 0 + channel 1 + ...,
// divided by the count), soxr HQ to the target rate, padded with zeros or cut
// to ceil(frames * rate / source rate).
#include <cmath>

#include "absl/strings/str_format.h"
#include "core/mapped_file.h"
#include "core/media/codec_choice.h"
#include "core/media/media.h"
#include "core/media/resample.h"

namespace oxinfer::media {

absl::StatusOr<Audio> DecodeAudio(const PluginRegistry& registry, absl::string_view bytes,
                                  const std::string& name, int32_t sampling_rate,
                                  const DecodeOptions& options) {
  if (sampling_rate <= 0) {
    return absl::InvalidArgumentError(absl::StrFormat("sampling rate %d", sampling_rate));
  }
  auto chosen = ChooseCodec(registry, bytes, OXI_MEDIA_AUDIO, name);
  if (!chosen.ok()) return chosen.status();
  const oxi_codec_iface* codec = chosen->codec;
  const oxi_decode_limits limits = {sizeof(oxi_decode_limits), options.max_pixels,
                                    options.max_audio_seconds};
  oxi_audio out = {};
  out.struct_size = sizeof out;
  const char* format = nullptr;
  char error[1024] = {};
  const int32_t rc = codec->decode_audio(reinterpret_cast<const uint8_t*>(bytes.data()),
                                         bytes.size(), &limits, &out, &format, error, sizeof error);
  const std::string& plugin = chosen->record->name;
  if (rc != OXI_OK) {
    if (out.samples != nullptr) codec->free_audio(&out);
    return absl::Status(static_cast<absl::StatusCode>(rc),
                        absl::StrFormat("%s: codec '%s' cannot decode it: %s", name, plugin,
                                        error[0] ? error : "(no message)"));
  }
  Audio audio;
  audio.codec = plugin;
  audio.format = format != nullptr && format[0] ? format : plugin;
  audio.source_rate = out.sample_rate;
  audio.source_channels = out.channels;
  audio.source_frames = out.frames;
  const bool sane = out.sample_rate > 0 && out.channels > 0 && out.channels <= 1024 &&
                    out.frames >= 0 && (out.samples != nullptr || out.frames == 0);
  std::vector<float> mono;
  if (sane) {
    mono.resize(static_cast<size_t>(out.frames));
    const int c = out.channels;
    for (int64_t i = 0; i < out.frames; ++i) {
      const float* f = out.samples + i * c;
      float sum = f[0];
      for (int k = 1; k < c; ++k) sum += f[k];
      mono[i] = c > 1 ? sum / static_cast<float>(c) : sum;
    }
  }
  codec->free_audio(&out);
  if (!sane) {
    return absl::InternalError(
        absl::StrFormat("%s: codec '%s' returned invalid audio", name, plugin));
  }
  audio.sample_rate = sampling_rate;
  if (audio.source_rate == sampling_rate) {
    audio.samples = std::move(mono);
    return audio;
  }
  auto resampled = ResampleHq(mono, audio.source_rate, sampling_rate);
  if (!resampled.ok()) return resampled.status();
  const size_t want = static_cast<size_t>(
      std::ceil(static_cast<double>(mono.size()) * sampling_rate / audio.source_rate));
  resampled->resize(want, 0.0f);
  audio.samples = std::move(*resampled);
  return audio;
}

absl::StatusOr<Audio> LoadAudio(const PluginRegistry& registry, const std::string& path,
                                int32_t sampling_rate, const DecodeOptions& options) {
  auto bytes = ReadFileToString(path, options.max_file_bytes);
  if (!bytes.ok()) return bytes.status();
  return DecodeAudio(registry, *bytes, path, sampling_rate, options);
}

uint32_t SniffMedia(const PluginRegistry& registry, absl::string_view bytes) {
  const ChosenCodec image = BestCodec(registry, bytes, OXI_MEDIA_IMAGE);
  const ChosenCodec audio = BestCodec(registry, bytes, OXI_MEDIA_AUDIO);
  if (image.record == nullptr && audio.record == nullptr) return 0;
  return image.score >= audio.score ? OXI_MEDIA_IMAGE : OXI_MEDIA_AUDIO;
}

}  // namespace oxinfer::media
