// How Pillow reads a PNG and converts it to RGB, done with libpng:
//   palette (1-8 bit): the PLTE colours, indices past its end black, tRNS
//     ignored; gray 1/2/4-bit: scaled to 8 bits (0->0, max->255); gray 8:
//     replicated; gray 16 ("I;16"): min(value, 255) replicated, Pillow's
//     clipping quirk; RGB / RGBA / gray+alpha 16-bit: the high byte of each
//     sample (rawmodes "RGB;16B" ...); alpha dropped; interlaced: Adam7.
//   EXIF: the eXIf chunk, else a "Raw profile type exif" text chunk; when it
//     has no orientation, XMP's tiff:Orientation (iTXt XML:com.adobe.xmp).
// libpng reports errors by longjmp: every libpng call runs inside one
// function with its own setjmp, with only plain C state live across it.
#include "plugins/codecs/png/png_rgb.h"

#include <png.h>

#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "oxinfer/sdk/pillow.hpp"

namespace oxinfer {
namespace png_codec {
namespace {

struct Io {
  const uint8_t* data;
  size_t size;
  size_t pos;
  char message[256];
};

void Fail(png_structp png, const char* msg) {
  auto* io = static_cast<Io*>(png_get_error_ptr(png));
  if (io->message[0] == '\0') std::snprintf(io->message, sizeof io->message, "%s", msg);
  png_longjmp(png, 1);
}

void OnError(png_structp png, png_const_charp msg) { Fail(png, msg ? msg : "libpng error"); }
void OnWarning(png_structp, png_const_charp) {}

void Read(png_structp png, png_bytep dst, png_size_t n) {
  auto* io = static_cast<Io*>(png_get_io_ptr(png));
  if (n > io->size - io->pos) Fail(png, "truncated: the file ends before the image does");
  std::memcpy(dst, io->data + io->pos, n);
  io->pos += n;
}

// What the first pass learns.
struct Info {
  uint32_t width, height;
  int bit_depth, color_type, interlace;
  int exif;  // ExifOrientation's answer; -2: no EXIF chunk seen yet
  int xmp;
  uint8_t palette[256][3];  // zero past PLTE's end
};

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Pillow: bytes.fromhex("".join(text.split("\n")[3:])).
int RawProfileOrientation(const char* text, size_t n) {
  size_t i = 0;
  for (int lines = 0; i < n && lines < 3; ++i) lines += text[i] == '\n';
  std::vector<uint8_t> bytes;
  int hi = -1;
  for (; i < n; ++i) {
    if (text[i] == '\n' || text[i] == ' ') continue;
    const int d = HexDigit(text[i]);
    if (d < 0) return -1;
    if (hi < 0) {
      hi = d;
    } else {
      bytes.push_back(static_cast<uint8_t>(hi * 16 + d));
      hi = -1;
    }
  }
  return hi >= 0 ? -1 : sdk::pillow::ExifOrientation(bytes.data(), bytes.size());
}

// The EXIF and XMP chunks of one info struct (Pillow: eXIf, else the
// "Raw profile type exif" text; XMP from iTXt XML:com.adobe.xmp), the first
// of each kept.
void ReadOrientation(png_structp png, png_infop pinfo, Info* info) {
  // eXIf comes as an unknown chunk (see Run): libpng refuses one that starts
  // with "Exif\0\0", which Pillow accepts.
  png_unknown_chunkp chunks = nullptr;
  const int n = png_get_unknown_chunks(png, pinfo, &chunks);
  for (int i = 0; i < n && info->exif == -2; ++i) {
    if (std::memcmp(chunks[i].name, "eXIf", 4) == 0) {
      info->exif = sdk::pillow::ExifOrientation(chunks[i].data, chunks[i].size);
    }
  }
  png_textp text = nullptr;
  int count = 0;
  png_get_text(png, pinfo, &text, &count);
  for (int i = 0; i < count; ++i) {
    const size_t len = text[i].compression > 0 ? text[i].itxt_length : text[i].text_length;
    if (info->exif == -2 && std::strcmp(text[i].key, "Raw profile type exif") == 0) {
      info->exif = RawProfileOrientation(text[i].text, len);
    } else if (info->xmp < 0 && std::strcmp(text[i].key, "XML:com.adobe.xmp") == 0) {
      info->xmp = sdk::pillow::XmpOrientation(reinterpret_cast<const uint8_t*>(text[i].text), len);
    }
  }
}

// Pass 1 (header and chunks) when rows == nullptr; pass 2 decodes into rows
// (libpng's output after the transforms below).
int32_t Run(Io* io, Info* info, png_bytep* rows) {
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, io, OnError, OnWarning);
  if (png == nullptr) return OXI_RESOURCE_EXHAUSTED;
  png_infop pinfo = png_create_info_struct(png);
  png_infop end = png_create_info_struct(png);
  if (pinfo == nullptr || end == nullptr) {
    png_destroy_read_struct(&png, &pinfo, &end);
    return OXI_RESOURCE_EXHAUSTED;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &pinfo, &end);
    return OXI_DATA_LOSS;
  }
  io->pos = 0;
  png_set_read_fn(png, io, Read);
  png_set_user_limits(png, 1u << 24, 1u << 24);
  png_set_crc_action(png, PNG_CRC_ERROR_QUIT, PNG_CRC_ERROR_QUIT);
  static const png_byte kExif[] = {'e', 'X', 'I', 'f', 0};
  png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_ALWAYS, kExif, 1);
  png_read_info(png, pinfo);
  png_get_IHDR(png, pinfo, &info->width, &info->height, &info->bit_depth, &info->color_type,
               &info->interlace, nullptr, nullptr);
  const int ct = info->color_type;
  if (rows == nullptr) {
    std::memset(info->palette, 0, sizeof info->palette);
    png_colorp plte = nullptr;
    int n = 0;
    if (ct == PNG_COLOR_TYPE_PALETTE && png_get_PLTE(png, pinfo, &plte, &n) != 0) {
      for (int i = 0; i < n && i < 256; ++i) {
        info->palette[i][0] = plte[i].red;
        info->palette[i][1] = plte[i].green;
        info->palette[i][2] = plte[i].blue;
      }
    }
    info->exif = -2;
    info->xmp = -1;
    ReadOrientation(png, pinfo, info);
    png_destroy_read_struct(&png, &pinfo, &end);
    return OXI_OK;
  }
  if (ct == PNG_COLOR_TYPE_PALETTE) png_set_packing(png);
  if (ct == PNG_COLOR_TYPE_GRAY && info->bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (info->bit_depth == 16 && ct != PNG_COLOR_TYPE_GRAY) png_set_strip_16(png);
  if (ct & PNG_COLOR_MASK_ALPHA) png_set_strip_alpha(png);
  png_set_interlace_handling(png);
  png_read_update_info(png, pinfo);
  png_read_image(png, rows);
  png_read_end(png, end);           // the CRCs and chunks after the image data
  ReadOrientation(png, end, info);  // chunks after IDAT (Pillow's load() reads them too)
  png_destroy_read_struct(&png, &pinfo, &end);
  return OXI_OK;
}

const char* FormatName(int ct, int depth, int interlace) {
  // Static names: "png rgba 8-bit interlaced".
  static const char* const kTypes[] = {"gray", "?", "rgb", "palette", "gray+alpha", "?", "rgba"};
  struct Names {
    char text[7][17][2][40];
    Names() {
      for (int t = 0; t < 7; ++t)
        for (int d = 0; d < 17; ++d)
          for (int i = 0; i < 2; ++i)
            std::snprintf(text[t][d][i], sizeof text[t][d][i], "png %s %d-bit%s", kTypes[t], d,
                          i ? " interlaced" : "");
    }
  };
  static const Names names;
  if (ct < 0 || ct > 6 || depth < 0 || depth > 16) return "png";
  return names.text[ct][depth][interlace ? 1 : 0];
}

}  // namespace

int32_t PngRgb::Sniff(const uint8_t* head, size_t n) {
  return n >= 8 && png_sig_cmp(head, 0, 8) == 0 ? 100 : 0;
}

sdk::StatusOr<sdk::RgbImage> PngRgb::DecodeRgb(const sdk::Bytes& in,
                                               const sdk::DecodeLimits& limits) {
  if (Sniff(in.data, in.size) == 0) return sdk::InvalidArgumentError("png: bad signature");
  Io io = {in.data, in.size, 0, {0}};
  Info info;
  int32_t rc = Run(&io, &info, nullptr);
  if (rc != OXI_OK) return sdk::Status(rc, std::string("png: ") + io.message);
  auto img = sdk::pillow::NewRgb(info.width, info.height, limits,
                                 FormatName(info.color_type, info.bit_depth, info.interlace));
  if (!img.ok()) return img.status().WithContext("png");
  const int ct = info.color_type;
  const bool gray16 = ct == PNG_COLOR_TYPE_GRAY && info.bit_depth == 16;
  const size_t channels = ct == PNG_COLOR_TYPE_RGB || ct == PNG_COLOR_TYPE_RGB_ALPHA ? 3 : 1;
  const size_t stride = static_cast<size_t>(info.width) * channels * (gray16 ? 2 : 1);
  std::vector<uint8_t> raw(stride * info.height);
  std::vector<png_bytep> rows(info.height);
  for (uint32_t y = 0; y < info.height; ++y) rows[y] = raw.data() + y * stride;
  rc = Run(&io, &info, rows.data());
  if (rc != OXI_OK) return sdk::Status(rc, std::string("png: ") + io.message);
  uint8_t* out = img->pixels.data();
  const size_t count = static_cast<size_t>(info.width) * info.height;
  for (size_t i = 0; i < count; ++i, out += 3) {
    if (channels == 3) {
      std::memcpy(out, &raw[i * 3], 3);
    } else if (ct == PNG_COLOR_TYPE_PALETTE) {
      std::memcpy(out, info.palette[raw[i]], 3);
    } else if (gray16) {
      out[0] = out[1] = out[2] = sdk::pillow::I16ToL((raw[2 * i] << 8) | raw[2 * i + 1]);
    } else {
      out[0] = out[1] = out[2] = raw[i];
    }
  }
  sdk::pillow::ApplyOrientation(sdk::pillow::Orientation(info.exif < -1 ? -1 : info.exif, info.xmp),
                                &*img);
  return img;
}

}  // namespace png_codec
}  // namespace oxinfer
