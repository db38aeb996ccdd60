// oxinfer SDK: CodecPlugin<T> writes a codec plugin's descriptor, its C table
// (oxi_codec_iface, ABI 2.1) and the error plumbing around a class T of
// static functions:
//
//   struct MyCodec {
//     static int32_t Sniff(const uint8_t* head, size_t n);   // 0: not mine
//     // Images (optional): what transformers' load_image gives, see pillow.hpp.
//     static sdk::StatusOr<sdk::RgbImage> DecodeRgb(const sdk::Bytes& in,
//                                                   const sdk::DecodeLimits& limits);
//     // Audio (optional): every channel at the stored rate.
//     static sdk::StatusOr<sdk::Audio> DecodeAudio(const sdk::Bytes& in,
//                                                  const sdk::DecodeLimits& limits);
//   };
//   OXINFER_CODEC_PLUGIN(MyCodec, "mycodec", "1.0.0", "what it reads", "fmt1,fmt2")
//
// The adapter checks the host's arguments, turns exceptions into
// OXI_INTERNAL, copies the result into memory it frees itself, and leaves the
// entries of functions T lacks NULL. Messages need not name the file: the
// host prefixes the path and the codec.
#ifndef OXINFER_SDK_CODEC_HPP_
#define OXINFER_SDK_CODEC_HPP_

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "oxinfer/codec_abi.h"
#include "oxinfer/sdk/common.hpp"
#include "oxinfer/sdk/status.hpp"

namespace oxinfer {
namespace sdk {

// The encoded file, borrowed for the call.
struct Bytes {
  const uint8_t* data = nullptr;
  size_t size = 0;
};

// The host's limits (0: none).
struct DecodeLimits {
  int64_t max_pixels = 0;
  double max_audio_seconds = 0;

  // An error naming both numbers when width x height exceeds max_pixels.
  Status CheckPixels(int64_t width, int64_t height) const {
    if (width <= 0 || height <= 0) {
      return Status(OXI_DATA_LOSS, "the header declares an empty image (" + std::to_string(width) +
                                       "x" + std::to_string(height) + ")");
    }
    if (max_pixels > 0 && width > max_pixels / height) {
      return Status(OXI_RESOURCE_EXHAUSTED,
                    "the header declares " + std::to_string(width) + "x" + std::to_string(height) +
                        " pixels, more than the limit of " + std::to_string(max_pixels) +
                        " (a decompression bomb? --max-image-pixels raises it)");
    }
    return OkStatus();
  }
  // The same for frames at a rate (the stream's declared or decoded length).
  Status CheckAudio(int64_t frames, int64_t rate) const {
    if (rate <= 0) return Status(OXI_DATA_LOSS, "sample rate " + std::to_string(rate));
    if (max_audio_seconds > 0 && static_cast<double>(frames) / rate > max_audio_seconds) {
      return Status(OXI_RESOURCE_EXHAUSTED,
                    "the audio lasts more than the limit of " +
                        std::to_string(static_cast<int64_t>(max_audio_seconds)) +
                        " s (--max-audio-seconds raises it)");
    }
    return OkStatus();
  }
};

// 8-bit RGB, rows top to bottom.
struct RgbImage {
  int32_t width = 0, height = 0;
  std::vector<uint8_t> pixels;  // width * height * 3
  const char* format = "";      // static: what was decoded ("png palette")
};

struct Audio {
  int32_t sample_rate = 0;
  int32_t channels = 0;
  std::vector<float> samples;  // interleaved
  const char* format = "";     // static
};

namespace codec_internal {

template <typename T, typename = void>
struct HasDecodeRgb : std::false_type {};
template <typename T>
struct HasDecodeRgb<T, std::void_t<decltype(T::DecodeRgb(std::declval<const Bytes&>(),
                                                         std::declval<const DecodeLimits&>()))>>
    : std::true_type {};

template <typename T, typename = void>
struct HasDecodeAudio : std::false_type {};
template <typename T>
struct HasDecodeAudio<T, std::void_t<decltype(T::DecodeAudio(std::declval<const Bytes&>(),
                                                             std::declval<const DecodeLimits&>()))>>
    : std::true_type {};

inline DecodeLimits ReadLimits(const oxi_decode_limits* l) {
  DecodeLimits out;
  if (l == nullptr) return out;
  if (OXI_HAS_FIELD(l, oxi_decode_limits, max_pixels)) out.max_pixels = l->max_pixels;
  if (OXI_HAS_FIELD(l, oxi_decode_limits, max_audio_seconds)) {
    out.max_audio_seconds = l->max_audio_seconds;
  }
  return out;
}

template <typename V>
typename V::value_type* MallocCopy(const V& v) {
  using E = typename V::value_type;
  auto* p = static_cast<E*>(std::malloc(v.size() * sizeof(E) + 1));
  if (p == nullptr) throw std::bad_alloc();
  if (!v.empty()) std::memcpy(p, v.data(), v.size() * sizeof(E));
  return p;
}

}  // namespace codec_internal

template <typename T>
class CodecPlugin {
 public:
  static const oxi_codec_iface* Iface(const char* formats) {
    static oxi_codec_iface table = Build(formats);
    return &table;
  }

  // The C entries, public so that a hand-written table (a codec that also
  // encodes) can take them.
  static oxi_codec_iface Build(const char* formats) {
    oxi_codec_iface t;
    std::memset(&t, 0, sizeof t);
    t.struct_size = sizeof(oxi_codec_iface);
    t.formats = formats;
    t.sniff = &SniffC;
    if constexpr (codec_internal::HasDecodeRgb<T>::value) {
      t.media |= OXI_MEDIA_IMAGE;
      t.decode_image_rgb = &DecodeRgbC;
      t.free_image = &FreeImageC;
    }
    if constexpr (codec_internal::HasDecodeAudio<T>::value) {
      t.media |= OXI_MEDIA_AUDIO;
      t.decode_audio = &DecodeAudioC;
      t.free_audio = &FreeAudioC;
    }
    return t;
  }

  static int32_t SniffC(const uint8_t* head, size_t n) {
    if (head == nullptr || n == 0) return 0;
    try {
      return T::Sniff(head, n);
    } catch (...) {
      return 0;
    }
  }

  static bool BadArgs(const uint8_t* data, size_t n, const void* out, char* error,
                      size_t error_size) {
    if (out != nullptr && (data != nullptr || n == 0)) return false;
    WriteMessage(error, error_size, "null argument");
    return true;
  }

  static int32_t DecodeRgbC(const uint8_t* data, size_t n, const oxi_decode_limits* limits,
                            oxi_image* out, const char** format, char* error, size_t error_size) {
    if (BadArgs(data, n, out, error, error_size)) return OXI_INVALID_ARGUMENT;
    return Guard(error, error_size, [&]() -> Status {
      if constexpr (codec_internal::HasDecodeRgb<T>::value) {
        StatusOr<RgbImage> img = T::DecodeRgb(Bytes{data, n}, codec_internal::ReadLimits(limits));
        if (!img.ok()) return img.status();
        if (img->pixels.size() != static_cast<size_t>(img->width) * img->height * 3) {
          return Status(OXI_INTERNAL, "decoder returned a pixel buffer of the wrong size");
        }
        out->struct_size = sizeof(oxi_image);
        out->width = img->width;
        out->height = img->height;
        out->channels = 3;
        out->pixels = codec_internal::MallocCopy(img->pixels);
        if (format != nullptr) *format = img->format;
        return OkStatus();
      } else {
        return Status(OXI_UNIMPLEMENTED, "no image decoder");
      }
    });
  }

  static void FreeImageC(oxi_image* image) {
    if (image == nullptr) return;
    std::free(image->pixels);
    image->pixels = nullptr;
  }

  static int32_t DecodeAudioC(const uint8_t* data, size_t n, const oxi_decode_limits* limits,
                              oxi_audio* out, const char** format, char* error, size_t error_size) {
    if (BadArgs(data, n, out, error, error_size)) return OXI_INVALID_ARGUMENT;
    return Guard(error, error_size, [&]() -> Status {
      if constexpr (codec_internal::HasDecodeAudio<T>::value) {
        StatusOr<Audio> a = T::DecodeAudio(Bytes{data, n}, codec_internal::ReadLimits(limits));
        if (!a.ok()) return a.status();
        if (a->channels <= 0 || a->sample_rate <= 0 || a->samples.size() % a->channels != 0) {
          return Status(OXI_INTERNAL, "decoder returned inconsistent audio");
        }
        out->struct_size = sizeof(oxi_audio);
        out->sample_rate = a->sample_rate;
        out->channels = a->channels;
        out->frames = static_cast<int64_t>(a->samples.size() / a->channels);
        out->samples = codec_internal::MallocCopy(a->samples);
        if (format != nullptr) *format = a->format;
        return OkStatus();
      } else {
        return Status(OXI_UNIMPLEMENTED, "no audio decoder");
      }
    });
  }

  static void FreeAudioC(oxi_audio* audio) {
    if (audio == nullptr) return;
    std::free(audio->samples);
    audio->samples = nullptr;
  }
};

}  // namespace sdk
}  // namespace oxinfer

#define OXINFER_CODEC_PLUGIN(T, name, version, description, formats)                        \
  namespace {                                                                               \
  int32_t OxiCodecScore_(const oxi_host_services*, char*, size_t) { return 1; }             \
  const void* OxiCodecIface_(const oxi_host_services* host, char*, size_t) {                \
    ::oxinfer::sdk::HostSlot() = host;                                                      \
    return ::oxinfer::sdk::CodecPlugin<T>::Iface(formats);                                  \
  }                                                                                         \
  const oxi_plugin kOxiCodecPlugin_ = {                                                     \
      sizeof(oxi_plugin), OXI_ABI_MAJOR,   OXI_ABI_MINOR,  OXI_PLUGIN_CODEC, name, version, \
      description,        &OxiCodecScore_, &OxiCodecIface_};                                \
  }                                                                                         \
  extern "C" OXI_EXPORT const oxi_plugin* oxinfer_plugin_entry(void) { return &kOxiCodecPlugin_; }

#endif  // OXINFER_SDK_CODEC_HPP_
