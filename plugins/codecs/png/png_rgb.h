// PNG to the RGB pixels transformers' load_image gives (Pillow's
// PngImagePlugin, ImageOps.exif_transpose, convert("RGB")).
#ifndef OXINFER_PLUGINS_CODECS_PNG_PNG_RGB_H_
#define OXINFER_PLUGINS_CODECS_PNG_PNG_RGB_H_

#include "oxinfer/sdk/codec.hpp"

namespace oxinfer {
namespace png_codec {

struct PngRgb {
  static int32_t Sniff(const uint8_t* head, size_t n);
  static sdk::StatusOr<sdk::RgbImage> DecodeRgb(const sdk::Bytes& in,
                                                const sdk::DecodeLimits& limits);
};

}  // namespace png_codec
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_CODECS_PNG_PNG_RGB_H_
