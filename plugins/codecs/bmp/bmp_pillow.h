// The BMP flavours stb_image decodes differently from Pillow, decoded as
// Pillow's BmpImagePlugin does: 16-bit pixels (5-5-5 unless the bitfields
// say 5-6-5; each channel scaled by 255 / max, rounded down) and RLE8 / RLE4
// (Pillow's decoder with its quirks: absolute runs that continue on the next
// row, word alignment by file offset, a stream that ends early is refused);
// and Pillow's refusal of bitfield layouts it does not know.
#ifndef OXINFER_PLUGINS_CODECS_BMP_BMP_PILLOW_H_
#define OXINFER_PLUGINS_CODECS_BMP_BMP_PILLOW_H_

#include <cstddef>
#include <cstdint>

#include "oxinfer/sdk/codec.hpp"

namespace oxinfer {
namespace bmp_codec {

struct BmpHeader {
  uint32_t header_size = 0;
  int64_t width = 0, height = 0;  // height: rows, positive
  bool top_down = false;
  uint32_t bpp = 0, compression = 0, colors = 0;
  uint64_t data_offset = 0;  // where the pixels start (Pillow's rule)
  uint64_t palette_offset = 0;
  uint32_t masks[4] = {0, 0, 0, 0};  // r, g, b, a (compression 3)
};

// Reads the headers as Pillow does; an error for what Pillow refuses
// (unknown header sizes, depths, compressions, bitfield layouts).
sdk::StatusOr<BmpHeader> ReadHeader(const uint8_t* p, size_t n);

// Whether this file takes the paths below rather than stb_image.
bool NeedsPillowPath(const BmpHeader& h);

// Decodes a 16-bit or RLE file into img (already sized width x height).
sdk::Status DecodePillowPath(const uint8_t* p, size_t n, const BmpHeader& h, sdk::RgbImage* img);

}  // namespace bmp_codec
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_CODECS_BMP_BMP_PILLOW_H_
