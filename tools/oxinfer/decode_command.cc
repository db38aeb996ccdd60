#include "tools/oxinfer/decode_command.h"

#include <cstdio>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "core/engine/atomic_file.h"
#include "core/engine/image_output.h"
#include "core/mapped_file.h"
#include "oxinfer/codec_abi.h"

namespace oxinfer {
namespace {

void Put32(std::string* s, uint32_t v) {
  for (int i = 0; i < 4; ++i) s->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
void Put16(std::string* s, uint16_t v) {
  s->push_back(static_cast<char>(v & 0xFF));
  s->push_back(static_cast<char>(v >> 8));
}

absl::Status WriteAudio(const PluginRegistry& registry, const std::string& bytes,
                        const DecodeFlags& flags) {
  auto audio = media::DecodeAudio(registry, bytes, flags.input, 16000, flags.limits);
  if (!audio.ok()) return audio.status();
  absl::Status s = engine::WriteFileAtomically(flags.output, FloatWav(audio->samples, 16000));
  if (!s.ok()) return s;
  std::printf(
      "%s: %s, %d Hz, %d channel%s, %.3f s (codec %s) -> %s: %zu samples, 16000 Hz mono "
      "float32\n",
      flags.input.c_str(), audio->format.c_str(), audio->source_rate, audio->source_channels,
      audio->source_channels == 1 ? "" : "s",
      audio->source_rate > 0 ? double(audio->source_frames) / audio->source_rate : 0.0,
      audio->codec.c_str(), flags.output.c_str(), audio->samples.size());
  return absl::OkStatus();
}

absl::Status WriteImage(const PluginRegistry& registry, const std::string& bytes,
                        const DecodeFlags& flags) {
  absl::Status dest = engine::CheckImageDestination(registry, flags.output);
  if (!dest.ok()) return dest;
  auto img = media::DecodeImage(registry, bytes, flags.input, flags.limits);
  if (!img.ok()) return img.status();
  engine::Image out;
  out.width = img->width;
  out.height = img->height;
  out.channels = 3;
  out.pixels = std::move(img->pixels);
  absl::Status s = engine::WriteImageFile(registry, out, flags.output);
  if (!s.ok()) return s;
  std::printf("%s: %s, %dx%d (codec %s) -> %s: %dx%d RGB\n", flags.input.c_str(),
              img->format.c_str(), out.width, out.height, img->codec.c_str(), flags.output.c_str(),
              out.width, out.height);
  return absl::OkStatus();
}

}  // namespace

std::string FloatWav(const std::vector<float>& samples, int32_t rate) {
  const uint32_t data_bytes = static_cast<uint32_t>(samples.size() * 4);
  std::string w = "RIFF";
  Put32(&w, 4 + (8 + 18) + (8 + 4) + (8 + data_bytes));
  w += "WAVEfmt ";
  Put32(&w, 18);
  Put16(&w, 3);  // WAVE_FORMAT_IEEE_FLOAT
  Put16(&w, 1);
  Put32(&w, static_cast<uint32_t>(rate));
  Put32(&w, static_cast<uint32_t>(rate) * 4);
  Put16(&w, 4);
  Put16(&w, 32);
  Put16(&w, 0);
  w += "fact";
  Put32(&w, 4);
  Put32(&w, static_cast<uint32_t>(samples.size()));
  w += "data";
  Put32(&w, data_bytes);
  const size_t at = w.size();
  w.resize(at + data_bytes);
  if (data_bytes > 0) std::memcpy(&w[at], samples.data(), data_bytes);  // little-endian hosts
  return w;
}

absl::Status RunDecode(const PluginRegistry& registry, const DecodeFlags& flags) {
  auto bytes = ReadFileToString(flags.input, flags.limits.max_file_bytes);
  if (!bytes.ok()) return bytes.status();
  const bool wav = absl::EndsWithIgnoreCase(flags.output, ".wav");
  if (!wav) return WriteImage(registry, *bytes, flags);
  return WriteAudio(registry, *bytes, flags);
}

}  // namespace oxinfer
