#include "fuzz/codec_fuzz_input.h"

#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace oxinfer {
namespace {

// Small enough that a fuzzer's header bombs are refused fast, large enough
// for the seeds.
constexpr int64_t kMaxPixels = 1 << 16;
constexpr double kMaxSeconds = 5;

absl::Status Image(const oxi_codec_iface* c, const uint8_t* data, size_t size,
                   const oxi_decode_limits& limits) {
  oxi_image img = {};
  img.struct_size = sizeof img;
  const char* format = nullptr;
  char error[512] = {};
  const int32_t rc = c->decode_image_rgb(data, size, &limits, &img, &format, error, sizeof error);
  if (rc != OXI_OK) {
    if (error[0] == '\0' || img.pixels != nullptr) __builtin_trap();
    return absl::InvalidArgumentError(error);
  }
  if (img.channels != 3 || img.width <= 0 || img.height <= 0 || img.pixels == nullptr ||
      int64_t{img.width} * img.height > kMaxPixels || format == nullptr) {
    __builtin_trap();
  }
  volatile uint8_t sink = 0;  // every byte readable
  const size_t n = size_t(img.width) * img.height * 3;
  for (size_t i = 0; i < n; i += 61) sink ^= img.pixels[i];
  sink ^= img.pixels[n - 1];
  c->free_image(&img);
  return absl::OkStatus();
}

absl::Status Audio(const oxi_codec_iface* c, const uint8_t* data, size_t size,
                   const oxi_decode_limits& limits) {
  oxi_audio a = {};
  a.struct_size = sizeof a;
  const char* format = nullptr;
  char error[512] = {};
  const int32_t rc = c->decode_audio(data, size, &limits, &a, &format, error, sizeof error);
  if (rc != OXI_OK) {
    if (error[0] == '\0' || a.samples != nullptr) __builtin_trap();
    return absl::InvalidArgumentError(error);
  }
  if (a.channels <= 0 || a.sample_rate <= 0 || a.frames < 0 || format == nullptr ||
      (a.frames > 0 && a.samples == nullptr)) {
    __builtin_trap();
  }
  volatile float sink = 0;
  for (int64_t i = 0; i < a.frames * a.channels; i += 97) sink += a.samples[i];
  if (a.frames > 0) sink += a.samples[a.frames * a.channels - 1];
  c->free_audio(&a);
  return absl::OkStatus();
}

}  // namespace

absl::Status DecodeWithCodec(const oxi_codec_iface* c, const uint8_t* data, size_t size) {
  if (!OXI_HAS_FIELD(c, oxi_codec_iface, free_audio)) __builtin_trap();
  const oxi_decode_limits limits = {sizeof(oxi_decode_limits), kMaxPixels, kMaxSeconds};
  const int32_t score = size > 0 ? c->sniff(data, size) : 0;
  if (score < 0) __builtin_trap();
  // Decoders check the bytes themselves, so they run even when sniff says no.
  absl::Status result = absl::InvalidArgumentError("no decoder accepted it");
  if ((c->media & OXI_MEDIA_IMAGE) && c->decode_image_rgb != nullptr) {
    absl::Status s = Image(c, data, size, limits);
    if (s.ok()) return s;
    result = s;
  }
  if ((c->media & OXI_MEDIA_AUDIO) && c->decode_audio != nullptr) {
    absl::Status s = Audio(c, data, size, limits);
    if (s.ok()) return s;
    result = s;
  }
  return result;
}

}  // namespace oxinfer
