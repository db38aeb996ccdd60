#include "fuzz/codec_fuzz_input.h"

#include <cmath>
#include <cstring>
#include <string>

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

// Encodes `img` and decodes the result with the legacy (ABI 2.0) decoder:
// a lossless codec must give back the same geometry and bytes.
void CheckRoundTrip(const oxi_codec_iface* c, const oxi_image& img) {
  uint8_t* encoded = nullptr;
  size_t encoded_size = 0;
  char error[512] = {};
  const int32_t rc = c->encode_image(&img, "png", &encoded, &encoded_size, error, sizeof error);
  const bool valid = img.pixels != nullptr && img.width > 0 && img.height > 0 &&
                     (img.channels == 1 || img.channels == 3 || img.channels == 4);
  if (rc != OXI_OK) {
    // A valid small image must encode; a refusal carries a message.
    if (valid || error[0] == '\0' || encoded != nullptr) __builtin_trap();
    return;
  }
  if (!valid || encoded == nullptr || encoded_size == 0) __builtin_trap();
  oxi_image back = {};
  back.struct_size = sizeof back;
  if (c->decode_image(encoded, encoded_size, &back, error, sizeof error) != OXI_OK) {
    __builtin_trap();
  }
  const size_t n = size_t(img.width) * img.height * img.channels;
  if (back.width != img.width || back.height != img.height || back.channels != img.channels ||
      std::memcmp(back.pixels, img.pixels, n) != 0) {
    __builtin_trap();
  }
  c->free_image(&back);
  c->free_buffer(encoded);
}

// The encoder on an image made of the input bytes: the first three choose
// the width (1..64), the height (1..64) and the channels (1, 2, 3 or 4: 2 is
// refused), the rest are the pixels (repeated).
void EncodeFromBytes(const oxi_codec_iface* c, const uint8_t* data, size_t size) {
  if (size < 4) return;
  oxi_image img = {};
  img.struct_size = sizeof img;
  img.width = 1 + data[0] % 64;
  img.height = 1 + data[1] % 64;
  img.channels = 1 + data[2] % 4;
  const size_t n = size_t(img.width) * img.height * img.channels;
  std::string pixels(n, '\0');
  for (size_t i = 0; i < n; ++i) pixels[i] = static_cast<char>(data[3 + i % (size - 3)]);
  img.pixels = reinterpret_cast<uint8_t*>(pixels.data());
  CheckRoundTrip(c, img);
}

// The legacy decoder on what the RGB decoder accepted under the small limits
// (it has only the plugin's own bound, which fuzzing need not allocate).
void LegacyDecode(const oxi_codec_iface* c, const uint8_t* data, size_t size) {
  oxi_image img = {};
  img.struct_size = sizeof img;
  char error[512] = {};
  if (c->decode_image(data, size, &img, error, sizeof error) != OXI_OK) {
    if (error[0] == '\0' || img.pixels != nullptr) __builtin_trap();
    return;
  }
  if (img.width <= 0 || img.height <= 0 || img.pixels == nullptr ||
      int64_t{img.width} * img.height > kMaxPixels ||
      (img.channels != 1 && img.channels != 3 && img.channels != 4)) {
    __builtin_trap();
  }
  if (c->encode_image != nullptr) CheckRoundTrip(c, img);
  c->free_image(&img);
}

}  // namespace

absl::Status DecodeWithCodec(const oxi_codec_iface* c, const uint8_t* data, size_t size) {
  if (!OXI_HAS_FIELD(c, oxi_codec_iface, free_audio)) __builtin_trap();
  const oxi_decode_limits limits = {sizeof(oxi_decode_limits), kMaxPixels, kMaxSeconds};
  const int32_t score = size > 0 ? c->sniff(data, size) : 0;
  if (score < 0) __builtin_trap();
  // Decoders check the bytes themselves, so they run even when sniff says no.
  absl::Status result = absl::InvalidArgumentError("no decoder accepted it");
  if (c->encode_image != nullptr && c->decode_image != nullptr) {
    EncodeFromBytes(c, data, size);
  }
  if ((c->media & OXI_MEDIA_IMAGE) && c->decode_image_rgb != nullptr) {
    absl::Status s = Image(c, data, size, limits);
    if (s.ok() && c->decode_image != nullptr) LegacyDecode(c, data, size);
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
