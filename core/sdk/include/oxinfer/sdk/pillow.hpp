// oxinfer SDK: what transformers' load_image does to a decoded image, as
// Pillow does it, for codec plugins to share: the EXIF (and XMP) orientation
// of ImageOps.exif_transpose, and the per-mode rules of convert("RGB")
// (Pillow's Convert.c: CMYK, 16-bit gray, palettes). Header-only, bounded:
// every parser here reads only inside the bytes it is given.
#ifndef OXINFER_SDK_PILLOW_HPP_
#define OXINFER_SDK_PILLOW_HPP_

#include <cstdint>
#include <cstring>
#include <vector>

#include "oxinfer/sdk/codec.hpp"

namespace oxinfer {
namespace sdk {
namespace pillow {

// The Orientation tag (0x0112) of IFD0 of an EXIF block (a TIFF header after
// up to two "Exif\0\0", as Pillow's Exif.load strips them): its value;
// 0 when present but not a single SHORT/LONG (Pillow then finds no transpose
// for it); -1 when absent or unreadable (Pillow then consults XMP).
inline int ExifOrientation(const uint8_t* p, size_t n) {
  if (p == nullptr) return -1;
  for (int i = 0; i < 2 && n >= 6 && std::memcmp(p, "Exif\0\0", 6) == 0; ++i) {
    p += 6;
    n -= 6;
  }
  if (n < 8) return -1;
  bool le;
  if (p[0] == 'I' && p[1] == 'I' && p[2] == 42 && p[3] == 0) {
    le = true;
  } else if (p[0] == 'M' && p[1] == 'M' && p[2] == 0 && p[3] == 42) {
    le = false;
  } else {
    return -1;
  }
  auto u16 = [&](size_t at) -> uint32_t {
    return le ? p[at] | (p[at + 1] << 8) : (p[at] << 8) | p[at + 1];
  };
  auto u32 = [&](size_t at) -> uint32_t {
    return le ? u16(at) | (u16(at + 2) << 16) : (u16(at) << 16) | u16(at + 2);
  };
  const uint32_t ifd = u32(4);
  if (ifd > n - 2) return -1;
  const uint32_t count = u16(ifd);
  for (uint32_t i = 0; i < count; ++i) {
    const size_t e = static_cast<size_t>(ifd) + 2 + 12 * static_cast<size_t>(i);
    if (e + 12 > n) return -1;
    if (u16(e) != 0x0112) continue;
    const uint32_t type = u16(e + 2), values = u32(e + 4);
    if (values != 1) return 0;
    if (type == 3) return static_cast<int>(u16(e + 8));
    if (type == 4) return static_cast<int>(u32(e + 8) > 9 ? 0 : u32(e + 8));
    return 0;
  }
  return -1;
}

// Pillow's fallback when EXIF has no orientation: the first digit after
// "tiff:Orientation=\"" or "tiff:Orientation>" in the XMP packet; -1 if none.
inline int XmpOrientation(const uint8_t* p, size_t n) {
  static const char kKey[] = "tiff:Orientation";
  const size_t k = sizeof(kKey) - 1;
  for (size_t i = 0; p != nullptr && i + k + 1 < n; ++i) {
    if (std::memcmp(p + i, kKey, k) != 0) continue;
    size_t j = i + k;
    if (p[j] == '=' && j + 2 < n && p[j + 1] == '"') {
      j += 2;
    } else if (p[j] == '>') {
      j += 1;
    } else {
      continue;
    }
    if (j < n && p[j] >= '0' && p[j] <= '9') return p[j] - '0';
  }
  return -1;
}

// What exif_transpose uses: the EXIF tag when there is one, else XMP's.
inline int Orientation(int exif, int xmp) { return exif >= 0 ? exif : xmp >= 0 ? xmp : 1; }

// ImageOps.exif_transpose: 2 FLIP_LEFT_RIGHT, 3 ROTATE_180, 4 FLIP_TOP_BOTTOM,
// 5 TRANSPOSE, 6 ROTATE_270, 7 TRANSVERSE, 8 ROTATE_90; anything else: as is.
inline void ApplyOrientation(int orientation, RgbImage* img) {
  if (orientation < 2 || orientation > 8) return;
  const int64_t w = img->width, h = img->height;
  const bool swap = orientation >= 5;
  const int64_t ow = swap ? h : w, oh = swap ? w : h;
  std::vector<uint8_t> out(img->pixels.size());
  for (int64_t y = 0; y < oh; ++y) {
    for (int64_t x = 0; x < ow; ++x) {
      int64_t sx = 0, sy = 0;  // the source pixel of output (x, y)
      switch (orientation) {
        case 2:
          sx = w - 1 - x;
          sy = y;
          break;
        case 3:
          sx = w - 1 - x;
          sy = h - 1 - y;
          break;
        case 4:
          sx = x;
          sy = h - 1 - y;
          break;
        case 5:
          sx = y;
          sy = x;
          break;
        case 6:
          sx = y;
          sy = h - 1 - x;
          break;
        case 7:
          sx = w - 1 - y;
          sy = h - 1 - x;
          break;
        case 8:
          sx = w - 1 - y;
          sy = x;
          break;
      }
      std::memcpy(&out[(y * ow + x) * 3], &img->pixels[(sy * w + sx) * 3], 3);
    }
  }
  img->pixels.swap(out);
  img->width = static_cast<int32_t>(ow);
  img->height = static_cast<int32_t>(oh);
}

// Convert.c's MULDIV255.
inline int MulDiv255(int a, int b) {
  const int t = a * b + 128;
  return ((t >> 8) + t) >> 8;
}

inline uint8_t Clip8(int v) { return static_cast<uint8_t>(v < 0 ? 0 : v > 255 ? 255 : v); }

// cmyk2rgb, on CMYK as Pillow holds it (JPEG: libjpeg's values inverted,
// rawmode "CMYK;I").
inline void CmykToRgb(const uint8_t* cmyk, uint8_t* rgb) {
  const int nk = 255 - cmyk[3];
  for (int c = 0; c < 3; ++c) rgb[c] = Clip8(nk - MulDiv255(cmyk[c], nk));
}

// "I;16" to "RGB": each channel min(value, 255) (Pillow clips, it does not
// scale: a 16-bit gray PNG turns mostly white).
inline uint8_t I16ToL(uint32_t v) { return static_cast<uint8_t>(v > 255 ? 255 : v); }

// An image of w x h, its pixel buffer sized, after the host's limit check.
inline StatusOr<RgbImage> NewRgb(int64_t w, int64_t h, const DecodeLimits& limits,
                                 const char* format) {
  Status s = limits.CheckPixels(w, h);
  if (!s.ok()) return s;
  if (w > (1 << 24) || h > (1 << 24)) {
    return Status(OXI_RESOURCE_EXHAUSTED, "image dimensions beyond 16777216");
  }
  RgbImage img;
  img.width = static_cast<int32_t>(w);
  img.height = static_cast<int32_t>(h);
  img.pixels.resize(static_cast<size_t>(w) * static_cast<size_t>(h) * 3);
  img.format = format;
  return img;
}

}  // namespace pillow
}  // namespace sdk
}  // namespace oxinfer

#endif  // OXINFER_SDK_PILLOW_HPP_
