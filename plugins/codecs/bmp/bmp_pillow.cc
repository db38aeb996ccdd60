#include "plugins/codecs/bmp/bmp_pillow.h"

#include <algorithm>
#include <string>
#include <vector>

namespace oxinfer {
namespace bmp_codec {
namespace {

uint32_t Le32(const uint8_t* p) {
  return p[0] | (p[1] << 8) | (p[2] << 16) | (uint32_t(p[3]) << 24);
}
uint32_t Le16(const uint8_t* p) { return p[0] | (p[1] << 8); }

constexpr uint32_t kRle8 = 1, kRle4 = 2, kBitfields = 3;

bool Masks(const BmpHeader& h, uint32_t r, uint32_t g, uint32_t b) {
  return h.masks[0] == r && h.masks[1] == g && h.masks[2] == b;
}

// Pillow's SUPPORTED bitfield layouts (BmpImagePlugin).
bool SupportedBitfields(const BmpHeader& h) {
  const uint32_t a = h.masks[3];
  switch (h.bpp) {
    case 32:
      return (Masks(h, 0xFF0000, 0xFF00, 0xFF) && (a == 0 || a == 0xFF000000)) ||
             (Masks(h, 0xFF000000, 0xFF0000, 0xFF00) && (a == 0 || a == 0xFF)) ||
             (Masks(h, 0xFF000000, 0xFF00, 0xFF) && (a == 0 || a == 0xFF0000)) ||
             (Masks(h, 0xFF, 0xFF00, 0xFF0000) && a == 0xFF000000) || (Masks(h, 0, 0, 0) && a == 0);
    case 24:
      return Masks(h, 0xFF0000, 0xFF00, 0xFF);
    case 16:
      return Masks(h, 0xF800, 0x7E0, 0x1F) || Masks(h, 0x7C00, 0x3E0, 0x1F);
    default:
      return false;
  }
}

// One channel of a 16-bit pixel as Pillow's BGR;15 / BGR;16 unpackers scale it.
uint8_t Scale(uint32_t v, uint32_t max) { return static_cast<uint8_t>(v * 255 / max); }

sdk::Status Decode16(const uint8_t* p, size_t n, const BmpHeader& h, sdk::RgbImage* img) {
  const bool is565 = h.compression == kBitfields && Masks(h, 0xF800, 0x7E0, 0x1F);
  const uint64_t stride = ((static_cast<uint64_t>(h.width) * 16 + 31) >> 3) & ~uint64_t{3};
  const uint64_t end = h.data_offset + stride * static_cast<uint64_t>(h.height);
  if (end > n) {
    return sdk::DataLossError("bmp: truncated: the pixel data needs " + std::to_string(end) +
                              " bytes, the file has " + std::to_string(n));
  }
  for (int64_t y = 0; y < h.height; ++y) {
    const uint8_t* row = p + h.data_offset + stride * static_cast<uint64_t>(y);
    const int64_t out_y = h.top_down ? y : h.height - 1 - y;
    uint8_t* out = img->pixels.data() + static_cast<size_t>(out_y * h.width * 3);
    for (int64_t x = 0; x < h.width; ++x) {
      const uint32_t v = Le16(row + 2 * x);
      if (is565) {
        out[3 * x] = Scale((v >> 11) & 31, 31);
        out[3 * x + 1] = Scale((v >> 5) & 63, 63);
      } else {
        out[3 * x] = Scale((v >> 10) & 31, 31);
        out[3 * x + 1] = Scale((v >> 5) & 31, 31);
      }
      out[3 * x + 2] = Scale(v & 31, 31);
    }
  }
  return sdk::OkStatus();
}

// Pillow's BmpRleDecoder: the palette indices in file order (bottom row
// first unless top-down). Ends early (refused by the caller) when the stream
// does; may run a little past the image (the excess is ignored).
std::vector<uint8_t> RleIndices(const uint8_t* p, size_t n, const BmpHeader& h) {
  const bool rle4 = h.compression == kRle4;
  const uint64_t xsize = static_cast<uint64_t>(h.width);
  const uint64_t dest = xsize * static_cast<uint64_t>(h.height);
  std::vector<uint8_t> data;
  data.reserve(static_cast<size_t>(dest));
  uint64_t pos = h.data_offset, x = 0;
  auto left = [&]() { return pos <= n ? n - pos : 0; };
  while (data.size() < dest) {
    if (left() < 2) break;
    uint64_t count = p[pos];
    const uint8_t byte = p[pos + 1];
    pos += 2;
    if (count != 0) {  // encoded run
      if (x + count > xsize) count = x < xsize ? xsize - x : 0;
      for (uint64_t i = 0; i < count; ++i) {
        data.push_back(rle4 ? ((i % 2 == 0) ? byte >> 4 : byte & 0x0F) : byte);
      }
      x += count;
    } else if (byte == 0) {  // end of line
      while (data.size() % xsize != 0) data.push_back(0);
      x = 0;
    } else if (byte == 1) {  // end of bitmap
      break;
    } else if (byte == 2) {  // delta
      if (left() < 2) break;
      const uint64_t right = p[pos], up = p[pos + 1];
      pos += 2;
      const uint64_t skip = std::min<uint64_t>(dest - data.size(), right + up * xsize);
      data.insert(data.end(), static_cast<size_t>(skip), 0);
      x = data.size() % xsize;
    } else {  // absolute run
      const uint64_t want = std::min<uint64_t>(dest - data.size(), byte);
      const uint64_t bytes = rle4 ? (want + 1) / 2 : want;
      const uint64_t got = std::min<uint64_t>(bytes, left());
      for (uint64_t i = 0; i < got; ++i) {
        const uint8_t b = p[pos + i];
        if (rle4) {
          data.push_back(b >> 4);
          if (i * 2 + 1 < want) data.push_back(b & 0x0F);
        } else {
          data.push_back(b);
        }
      }
      pos += got;
      if (got < bytes || data.size() == dest) break;
      x += byte;
      if (pos % 2 != 0) ++pos;  // word alignment, by file offset
    }
  }
  return data;
}

sdk::Status DecodeRle(const uint8_t* p, size_t n, const BmpHeader& h, sdk::RgbImage* img) {
  // The palette (BGRX, 4 bytes an entry; OS/2 files have no RLE); entries the
  // file lacks are black, as in Pillow's palette.
  const uint64_t entries = h.colors;
  std::vector<uint8_t> pal(256 * 3, 0);
  bool gray = true;
  for (uint64_t i = 0; i < entries; ++i) {
    const uint64_t at = h.palette_offset + 4 * i;
    const bool have = at + 3 <= n;
    const uint8_t b = have ? p[at] : 0, g = have ? p[at + 1] : 0, r = have ? p[at + 2] : 0;
    if (i < 256) {
      pal[3 * i] = r;
      pal[3 * i + 1] = g;
      pal[3 * i + 2] = b;
    }
    // Pillow's grayscale test: entries 0..colors-1 are (i, i, i); two colours
    // must be black and white.
    const uint64_t expect = entries == 2 ? (i == 0 ? 0 : 255) : i;
    if (!have || i > 255 || r != expect || g != expect || b != expect) gray = false;
  }
  if (entries == 2 && h.palette_offset + 8 > n) gray = false;
  const std::vector<uint8_t> idx = RleIndices(p, n, h);
  const uint64_t dest = static_cast<uint64_t>(h.width) * static_cast<uint64_t>(h.height);
  if (idx.size() < dest) {
    return sdk::DataLossError("bmp: RLE data ends after " + std::to_string(idx.size()) + " of " +
                              std::to_string(dest) + " pixels (Pillow: not enough image data)");
  }
  for (int64_t y = 0; y < h.height; ++y) {
    const int64_t out_y = h.top_down ? y : h.height - 1 - y;
    uint8_t* out = img->pixels.data() + static_cast<size_t>(out_y * h.width * 3);
    const uint8_t* in = idx.data() + static_cast<size_t>(y * h.width);
    for (int64_t x = 0; x < h.width; ++x) {
      const uint8_t v = in[x];
      if (gray) {
        // Mode "L" (or "1" for two colours, where any non-zero index is white).
        const uint8_t l = entries <= 2 ? (v != 0 ? 255 : 0) : v;
        out[3 * x] = out[3 * x + 1] = out[3 * x + 2] = l;
      } else {
        out[3 * x] = pal[3 * v];
        out[3 * x + 1] = pal[3 * v + 1];
        out[3 * x + 2] = pal[3 * v + 2];
      }
    }
  }
  return sdk::OkStatus();
}

}  // namespace

sdk::StatusOr<BmpHeader> ReadHeader(const uint8_t* p, size_t n) {
  BmpHeader h;
  if (n < 18) return sdk::DataLossError("bmp: truncated header");
  h.header_size = Le32(p + 14);
  if (n < 14 + static_cast<uint64_t>(h.header_size))
    return sdk::DataLossError("bmp: truncated header");
  const uint8_t* d = p + 18;  // the header after its size field
  uint32_t padding = 4;
  if (h.header_size == 12) {
    h.width = Le16(d);
    h.height = Le16(d + 2);
    h.bpp = Le16(d + 6);
    padding = 3;
  } else if (h.header_size == 40 || h.header_size == 52 || h.header_size == 56 ||
             h.header_size == 64 || h.header_size == 108 || h.header_size == 124) {
    h.top_down = d[7] == 0xFF;  // Pillow's test: the height's top byte
    h.width = Le32(d);
    h.height = h.top_down ? (uint64_t{1} << 32) - Le32(d + 4) : Le32(d + 4);
    h.bpp = Le16(d + 10);
    h.compression = Le32(d + 12);
    h.colors = Le32(d + 28);
    if (h.compression == kBitfields) {
      if (h.header_size >= 52) {
        for (int i = 0; i < (h.header_size >= 56 ? 4 : 3); ++i) h.masks[i] = Le32(d + 36 + 4 * i);
      } else {
        if (n < 14 + 40 + 12) return sdk::DataLossError("bmp: truncated bitfield masks");
        for (int i = 0; i < 3; ++i) h.masks[i] = Le32(p + 54 + 4 * i);
      }
    }
  } else {
    return sdk::InvalidArgumentError("bmp: unsupported header size " +
                                     std::to_string(h.header_size));
  }
  if (h.colors == 0) h.colors = h.bpp < 32 ? uint32_t{1} << h.bpp : 0;
  h.data_offset = Le32(p + 10);
  h.palette_offset =
      14 + h.header_size + (h.compression == kBitfields && h.header_size == 40 ? 12 : 0);
  if (h.data_offset == 14 + h.header_size && h.bpp <= 8) {
    h.data_offset += static_cast<uint64_t>(padding) * h.colors;
  }
  switch (h.bpp) {
    case 1:
    case 4:
    case 8:
    case 16:
    case 24:
    case 32:
      break;
    default:
      return sdk::InvalidArgumentError("bmp: unsupported pixel depth " + std::to_string(h.bpp));
  }
  if (h.compression == kBitfields && !SupportedBitfields(h)) {
    return sdk::InvalidArgumentError("bmp: unsupported bitfields layout (as Pillow)");
  }
  if (h.compression == kRle8 || h.compression == kRle4) {
    if (h.bpp > 8) {
      return sdk::InvalidArgumentError("bmp: RLE compression with " + std::to_string(h.bpp) +
                                       "-bit pixels");
    }
    if (h.colors == 0 || h.colors > 65536) {
      return sdk::InvalidArgumentError("bmp: palette of " + std::to_string(h.colors) + " colours");
    }
  } else if (h.compression != 0 && h.compression != kBitfields) {
    return sdk::InvalidArgumentError("bmp: unsupported compression " +
                                     std::to_string(h.compression));
  }
  return h;
}

bool NeedsPillowPath(const BmpHeader& h) {
  return h.bpp == 16 || h.compression == kRle8 || h.compression == kRle4;
}

sdk::Status DecodePillowPath(const uint8_t* p, size_t n, const BmpHeader& h, sdk::RgbImage* img) {
  if (h.bpp == 16) return Decode16(p, n, h, img);
  return DecodeRle(p, n, h, img);
}

}  // namespace bmp_codec
}  // namespace oxinfer
