// The BMP codec plugin: stb_image's BMP reader (Debian's libstb-dev) for
// 1/4/8-bit palettes, 24-bit and 32-bit (alpha dropped, as Pillow's
// convert("RGB") does), bottom-up and top-down; 16-bit and RLE8 / RLE4 files,
// where stb differs from Pillow, through bmp_pillow.cc. Headers are read as
// Pillow reads them first (what Pillow refuses is refused), and the size is
// checked against the host's limit before any pixels are allocated.
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_STATIC
#define STBI_ONLY_BMP
#define STBI_NO_STDIO
#define STBI_NO_LINEAR
#define STBI_NO_HDR
#define STBI_MAX_DIMENSIONS (1 << 24)
#include <stb/stb_image.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "oxinfer/sdk/codec.hpp"
#include "oxinfer/sdk/pillow.hpp"
#include "plugins/codecs/bmp/bmp_pillow.h"

namespace oxinfer {
namespace bmp_codec {
namespace {

uint32_t Le32(const uint8_t* p) {
  return p[0] | (p[1] << 8) | (p[2] << 16) | (uint32_t(p[3]) << 24);
}

uint32_t Le16(const uint8_t* p) { return p[0] | (p[1] << 8); }

// Where the uncompressed pixel rows end (the data offset plus |h| rows padded
// to 4 bytes); 0 for RLE (compression 1, 2), whose length the header does not
// give (stb refuses those anyway).
uint64_t PixelDataEnd(const uint8_t* p, size_t n, int64_t w, int64_t h) {
  const uint32_t header = Le32(p + 14);
  if (n < 14 + static_cast<size_t>(header < 40 ? 26 : 34)) return UINT64_MAX;
  const uint32_t bpp = header == 12 ? Le16(p + 24) : Le16(p + 28);
  const uint32_t compression = header == 12 ? 0 : Le32(p + 30);
  if (compression == 1 || compression == 2) return 0;
  const uint64_t row = ((static_cast<uint64_t>(w) * bpp + 31) / 32) * 4;
  return Le32(p + 10) + row * static_cast<uint64_t>(h);
}

struct BmpCodec {
  // "BM" alone is weak: the info header's size must be one Windows or OS/2
  // writes.
  static int32_t Sniff(const uint8_t* p, size_t n) {
    if (n < 18 || p[0] != 'B' || p[1] != 'M') return 0;
    switch (Le32(p + 14)) {
      case 12:
      case 40:
      case 52:
      case 56:
      case 64:
      case 108:
      case 124:
        return 80;
      default:
        return 0;
    }
  }

  static sdk::StatusOr<sdk::RgbImage> DecodeRgb(const sdk::Bytes& in,
                                                const sdk::DecodeLimits& limits) {
    if (Sniff(in.data, in.size) == 0) return sdk::InvalidArgumentError("bmp: not a BMP file");
    if (in.size > static_cast<size_t>(INT32_MAX))
      return sdk::ResourceExhaustedError("bmp: > 2 GiB");
    auto header = ReadHeader(in.data, in.size);
    if (!header.ok()) return header.status();
    if (NeedsPillowPath(*header)) {
      auto img = sdk::pillow::NewRgb(header->width, header->height, limits,
                                     header->bpp == 16 ? "bmp 16-bit" : "bmp rle");
      if (!img.ok()) return img.status().WithContext("bmp");
      sdk::Status s = DecodePillowPath(in.data, in.size, *header, &*img);
      if (!s.ok()) return s;
      return img;
    }
    const int n = static_cast<int>(in.size);
    int w = 0, h = 0, comp = 0;
    if (!stbi_info_from_memory(in.data, n, &w, &h, &comp)) {
      return sdk::DataLossError(std::string("bmp: corrupt header (") + stbi_failure_reason() + ")");
    }
    // Top-down files: stb's info keeps the sign (64-bit: INT_MIN has no int magnitude).
    const int64_t rows = h < 0 ? -int64_t{h} : h;
    auto img = sdk::pillow::NewRgb(w, rows, limits, comp == 4 ? "bmp 32-bit" : "bmp");
    if (!img.ok()) return img.status().WithContext("bmp");
    // stb reads past the end as zeros: a short file is refused as truncated
    // (as Pillow does), not decoded black.
    const uint64_t need = PixelDataEnd(in.data, in.size, w, rows);
    if (need > in.size) {
      return sdk::DataLossError("bmp: truncated: the pixel data needs " + std::to_string(need) +
                                " bytes, the file has " + std::to_string(in.size));
    }
    uint8_t* rgb = stbi_load_from_memory(in.data, n, &w, &h, &comp, 3);
    if (rgb == nullptr) {
      return sdk::DataLossError(std::string("bmp: cannot decode (") + stbi_failure_reason() + ")");
    }
    std::memcpy(img->pixels.data(), rgb, img->pixels.size());
    stbi_image_free(rgb);
    return img;
  }
};

}  // namespace
}  // namespace bmp_codec
}  // namespace oxinfer

OXINFER_CODEC_PLUGIN(
    oxinfer::bmp_codec::BmpCodec, "bmp", "1.1.0",
    "BMP decoder (stb_image; Pillow's rules for 16-bit and RLE): 1/4/8/16/24/32-bit, RLE8/RLE4",
    "bmp")
