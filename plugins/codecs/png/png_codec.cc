// The PNG codec plugin: decodes any PNG (palette, gray, 16-bit and interlaced
// images are converted to 8-bit gray, gray+alpha expanded to RGBA) and encodes
// 8-bit images of 1, 3 or 4 channels. libpng reports errors by longjmp; every
// libpng call runs inside one function with its own setjmp and no C++ objects
// with destructors live across it, so an error unwinds nothing but plain C
// state, which is released after the jump.
#include <png.h>

#include <csetjmp>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "oxinfer/plugin.hpp"
#include "oxinfer/sdk/codec.hpp"
#include "plugins/codecs/png/png_rgb.h"

namespace oxinfer {
namespace png_codec {
namespace {

constexpr char kName[] = "png";
constexpr int64_t kMaxPixels = int64_t{1} << 28;  // 256 Mpixel cap against bombs.
constexpr size_t kSignatureBytes = 8;

// What the libpng callbacks share: the input cursor and the last message.
struct IoState {
  const uint8_t* data = nullptr;
  size_t size = 0;
  size_t pos = 0;
  char message[256] = {0};
  // Output buffer for encoding (malloc'd, grown by doubling).
  uint8_t* out = nullptr;
  size_t out_size = 0;
  size_t out_cap = 0;
  bool out_of_memory = false;
};

void SetMessage(IoState* io, const char* msg) {
  if (io->message[0] != '\0') return;  // Keep the first, most specific one.
  std::snprintf(io->message, sizeof(io->message), "%s", msg);
}

void OnError(png_structp png, png_const_charp msg) {
  auto* io = static_cast<IoState*>(png_get_error_ptr(png));
  SetMessage(io, msg != nullptr ? msg : "unknown libpng error");
  png_longjmp(png, 1);
}

void OnWarning(png_structp, png_const_charp) {}

void ReadData(png_structp png, png_bytep dst, png_size_t n) {
  auto* io = static_cast<IoState*>(png_get_io_ptr(png));
  if (n > io->size - io->pos) {
    SetMessage(io, "truncated PNG: the data ends before the image is complete");
    png_longjmp(png, 1);
  }
  std::memcpy(dst, io->data + io->pos, n);
  io->pos += n;
}

void WriteData(png_structp png, png_bytep src, png_size_t n) {
  auto* io = static_cast<IoState*>(png_get_io_ptr(png));
  if (io->out_size + n > io->out_cap) {
    size_t cap = io->out_cap == 0 ? 4096 : io->out_cap;
    while (cap < io->out_size + n) cap *= 2;
    auto* grown = static_cast<uint8_t*>(std::realloc(io->out, cap));
    if (grown == nullptr) {
      io->out_of_memory = true;
      SetMessage(io, "out of memory while encoding PNG");
      png_longjmp(png, 1);
    }
    io->out = grown;
    io->out_cap = cap;
  }
  std::memcpy(io->out + io->out_size, src, n);
  io->out_size += n;
}

void FlushData(png_structp) {}

int32_t Sniff(const uint8_t* head, size_t n) {
  if (head == nullptr || n < kSignatureBytes) return 0;
  return png_sig_cmp(head, 0, kSignatureBytes) == 0 ? 100 : 0;
}

// All libpng decode work. Plain C locals only (setjmp). On success fills
// width/height/channels and *pixels (malloc'd); returns an oxi_status.
int32_t DecodeImpl(IoState* io, int32_t* width, int32_t* height, int32_t* channels,
                   uint8_t** pixels) {
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, io, OnError, OnWarning);
  if (png == nullptr) {
    SetMessage(io, "libpng: cannot create read struct");
    return OXI_RESOURCE_EXHAUSTED;
  }
  png_infop info = png_create_info_struct(png);
  // volatile: modified between setjmp and longjmp.
  uint8_t* volatile buffer = nullptr;
  png_bytep* volatile rows = nullptr;
  if (info == nullptr) {
    png_destroy_read_struct(&png, nullptr, nullptr);
    SetMessage(io, "libpng: cannot create info struct");
    return OXI_RESOURCE_EXHAUSTED;
  }
  if (setjmp(png_jmpbuf(png))) {
    std::free(buffer);
    std::free(rows);
    png_destroy_read_struct(&png, &info, nullptr);
    return OXI_DATA_LOSS;
  }
  png_set_read_fn(png, io, ReadData);
  png_set_user_limits(png, 1u << 20, 1u << 20);
  // CRC errors in critical and ancillary chunks are errors, not warnings.
  png_set_crc_action(png, PNG_CRC_ERROR_QUIT, PNG_CRC_ERROR_QUIT);
  png_read_info(png, info);

  png_uint_32 w = 0, h = 0;
  int bit_depth = 0, color_type = 0, interlace = 0;
  png_get_IHDR(png, info, &w, &h, &bit_depth, &color_type, &interlace, nullptr, nullptr);
  if (static_cast<int64_t>(w) * static_cast<int64_t>(h) > kMaxPixels) {
    SetMessage(io, "PNG too large");
    png_destroy_read_struct(&png, &info, nullptr);
    return OXI_RESOURCE_EXHAUSTED;
  }
  if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
  if (bit_depth == 16) png_set_strip_16(png);
  if (color_type == PNG_COLOR_TYPE_GRAY_ALPHA ||
      (color_type == PNG_COLOR_TYPE_GRAY && png_get_valid(png, info, PNG_INFO_tRNS))) {
    png_set_gray_to_rgb(png);  // No 2-channel images in oxi_image.
  }
  png_set_interlace_handling(png);
  png_read_update_info(png, info);

  const int ch = png_get_channels(png, info);
  const size_t rowbytes = png_get_rowbytes(png, info);
  if ((ch != 1 && ch != 3 && ch != 4) || rowbytes != static_cast<size_t>(w) * ch) {
    SetMessage(io, "unsupported PNG pixel layout after conversion");
    png_destroy_read_struct(&png, &info, nullptr);
    return OXI_UNIMPLEMENTED;
  }
  buffer = static_cast<uint8_t*>(std::malloc(rowbytes * h));
  rows = static_cast<png_bytep*>(std::malloc(sizeof(png_bytep) * h));
  if (buffer == nullptr || rows == nullptr) {
    SetMessage(io, "out of memory while decoding PNG");
    std::free(buffer);
    std::free(rows);
    png_destroy_read_struct(&png, &info, nullptr);
    return OXI_RESOURCE_EXHAUSTED;
  }
  for (png_uint_32 y = 0; y < h; ++y) rows[y] = buffer + y * rowbytes;
  png_read_image(png, rows);
  png_read_end(png, nullptr);  // Checks the CRCs of the chunks after the image.
  std::free(rows);
  png_destroy_read_struct(&png, &info, nullptr);
  *width = static_cast<int32_t>(w);
  *height = static_cast<int32_t>(h);
  *channels = ch;
  *pixels = buffer;
  return OXI_OK;
}

int32_t DecodeImage(const uint8_t* data, size_t n, oxi_image* out, char* error, size_t error_size) {
  if (out == nullptr || (data == nullptr && n > 0)) {
    sdk::WriteMessage(error, error_size, "png: null argument");
    return OXI_INVALID_ARGUMENT;
  }
  if (n < kSignatureBytes || png_sig_cmp(data, 0, kSignatureBytes) != 0) {
    sdk::WriteMessage(error, error_size, "png: not a PNG file (bad signature)");
    return OXI_INVALID_ARGUMENT;
  }
  IoState io;
  io.data = data;
  io.size = n;
  int32_t w = 0, h = 0, ch = 0;
  uint8_t* pixels = nullptr;
  int32_t status = DecodeImpl(&io, &w, &h, &ch, &pixels);
  if (status != OXI_OK) {
    sdk::WriteMessagef(error, error_size, "png: cannot decode: %s", io.message);
    return status;
  }
  out->struct_size = sizeof(oxi_image);
  out->width = w;
  out->height = h;
  out->channels = ch;
  out->pixels = pixels;
  return OXI_OK;
}

void FreeImage(oxi_image* image) {
  if (image == nullptr) return;
  std::free(image->pixels);
  image->pixels = nullptr;
}

int32_t EncodeImpl(IoState* io, const oxi_image* image) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, io, OnError, OnWarning);
  if (png == nullptr) {
    SetMessage(io, "libpng: cannot create write struct");
    return OXI_RESOURCE_EXHAUSTED;
  }
  png_infop info = png_create_info_struct(png);
  if (info == nullptr) {
    png_destroy_write_struct(&png, nullptr);
    SetMessage(io, "libpng: cannot create info struct");
    return OXI_RESOURCE_EXHAUSTED;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return io->out_of_memory ? OXI_RESOURCE_EXHAUSTED : OXI_INTERNAL;
  }
  png_set_write_fn(png, io, WriteData, FlushData);
  const int color_type = image->channels == 1   ? PNG_COLOR_TYPE_GRAY
                         : image->channels == 3 ? PNG_COLOR_TYPE_RGB
                                                : PNG_COLOR_TYPE_RGBA;
  png_set_IHDR(png, info, image->width, image->height, 8, color_type, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  const size_t stride = static_cast<size_t>(image->width) * image->channels;
  for (int32_t y = 0; y < image->height; ++y) {
    png_write_row(png, image->pixels + y * stride);
  }
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return OXI_OK;
}

int32_t EncodeImage(const oxi_image* image, const char* format, uint8_t** out, size_t* out_size,
                    char* error, size_t error_size) {
  if (image == nullptr || out == nullptr || out_size == nullptr) {
    sdk::WriteMessage(error, error_size, "png: null argument");
    return OXI_INVALID_ARGUMENT;
  }
  *out = nullptr;
  *out_size = 0;
  if (format != nullptr && format[0] != '\0' && std::strcmp(format, "png") != 0 &&
      std::strcmp(format, "PNG") != 0) {
    sdk::WriteMessagef(error, error_size, "png: cannot encode format '%s'", format);
    return OXI_INVALID_ARGUMENT;
  }
  if (!OXI_HAS_FIELD(image, oxi_image, pixels) || image->pixels == nullptr) {
    sdk::WriteMessage(error, error_size, "png: image has no pixels");
    return OXI_INVALID_ARGUMENT;
  }
  if (image->channels != 1 && image->channels != 3 && image->channels != 4) {
    sdk::WriteMessagef(error, error_size, "png: cannot encode %d channels (1, 3 or 4)",
                       image->channels);
    return OXI_INVALID_ARGUMENT;
  }
  if (image->width <= 0 || image->height <= 0 || image->width > (1 << 20) ||
      image->height > (1 << 20) ||
      static_cast<int64_t>(image->width) * image->height > kMaxPixels) {
    sdk::WriteMessagef(error, error_size, "png: bad image size %dx%d", image->width, image->height);
    return OXI_INVALID_ARGUMENT;
  }
  IoState io;
  int32_t status = EncodeImpl(&io, image);
  if (status != OXI_OK) {
    std::free(io.out);
    sdk::WriteMessagef(error, error_size, "png: cannot encode: %s", io.message);
    return status;
  }
  *out = io.out;
  *out_size = io.out_size;
  return OXI_OK;
}

void FreeBuffer(uint8_t* buffer) { std::free(buffer); }

// 2.0's entries, then 2.1's: the RGB decode through the SDK's adapter
// (png_rgb.cc; its images are malloc'd too, so FreeImage releases both).
const oxi_codec_iface kCodec = {
    sizeof(oxi_codec_iface),
    "png",
    Sniff,
    DecodeImage,
    FreeImage,
    EncodeImage,
    FreeBuffer,
    OXI_MEDIA_IMAGE,
    sdk::CodecPlugin<PngRgb>::DecodeRgbC,
    nullptr,
    nullptr,
};

int32_t Score(const oxi_host_services*, char*, size_t) { return 1; }

const void* GetInterface(const oxi_host_services*, char*, size_t) { return &kCodec; }

const oxi_plugin kPlugin = {
    sizeof(oxi_plugin),
    OXI_ABI_MAJOR,
    OXI_ABI_MINOR,
    OXI_PLUGIN_CODEC,
    kName,
    "0.1.0",
    "PNG decoder and encoder (libpng); RGB as Pillow converts it",
    Score,
    GetInterface,
};

}  // namespace
}  // namespace png_codec
}  // namespace oxinfer

OXINFER_DEFINE_PLUGIN(oxinfer::png_codec::kPlugin)
