// The JPEG codec plugin (libjpeg-turbo's libjpeg API): decodes as Pillow's
// JpegImagePlugin does (libjpeg's defaults: ISLOW IDCT, fancy upsampling;
// 1 component gray, 3 RGB from YCbCr or RGB, 4 CMYK from CMYK or YCCK, read
// with Adobe's inverted polarity), then convert("RGB") and the EXIF / XMP
// orientation. libjpeg reports errors by longjmp: all libjpeg calls run in one
// function with plain C locals, its only owned memory freed after the jump.
#include <csetjmp>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <vector>

// jpeglib.h needs size_t and FILE declared first.
#include <jerror.h>
#include <jpeglib.h>

#include "oxinfer/plugin.hpp"
#include "oxinfer/sdk/codec.hpp"
#include "oxinfer/sdk/pillow.hpp"

namespace oxinfer {
namespace jpeg_codec {
namespace {

// More scans than any encoder writes: a progressive file with thousands of
// tiny scans decodes in quadratic time (a CPU bomb), so it is refused.
constexpr int kMaxScans = 1000;

struct ErrorState {
  jpeg_error_mgr mgr;
  jmp_buf jump;
  char message[JMSG_LENGTH_MAX + 64];
  bool truncated;
};

void OnError(j_common_ptr c) {
  auto* e = reinterpret_cast<ErrorState*>(c->err);
  (*c->err->format_message)(c, e->message);
  std::longjmp(e->jump, 1);
}

// Warnings (corrupt data libjpeg recovers from) pass, as in Pillow, except
// the end of the data arriving first: Pillow refuses truncated files.
void OnMessage(j_common_ptr c, int level) {
  auto* e = reinterpret_cast<ErrorState*>(c->err);
  if (level < 0 && c->err->msg_code == JWRN_JPEG_EOF) e->truncated = true;
}

void OnProgress(j_common_ptr c) {
  auto* d = reinterpret_cast<j_decompress_ptr>(c);
  if (d->input_scan_number > kMaxScans) {
    auto* e = reinterpret_cast<ErrorState*>(c->err);
    std::snprintf(e->message, sizeof e->message, "more than %d scans", kMaxScans);
    std::longjmp(e->jump, 1);
  }
}

const char* Sampling(const jpeg_decompress_struct& d) {
  if (d.num_components != 3) return "";
  const auto& c = d.comp_info;
  if (c[1].h_samp_factor != c[2].h_samp_factor || c[1].v_samp_factor != c[2].v_samp_factor ||
      c[1].h_samp_factor != 1 || c[1].v_samp_factor != 1) {
    return " other sampling";
  }
  const int h = c[0].h_samp_factor, v = c[0].v_samp_factor;
  if (h == 1 && v == 1) return " 4:4:4";
  if (h == 2 && v == 1) return " 4:2:2";
  if (h == 2 && v == 2) return " 4:2:0";
  if (h == 1 && v == 2) return " 4:4:0";
  if (h == 4 && v == 1) return " 4:1:1";
  return " other sampling";
}

// A static name for what was decoded.
const char* FormatName(bool progressive, J_COLOR_SPACE space, const char* sampling) {
  static const char* const kSpaces[] = {"gray", "rgb", "ycbcr", "cmyk", "ycck", "other"};
  static const char* const kSamplings[] = {"",       " 4:4:4", " 4:2:2",         " 4:2:0",
                                           " 4:4:0", " 4:1:1", " other sampling"};
  struct Names {
    char text[2][6][7][48];
    Names() {
      for (int p = 0; p < 2; ++p)
        for (int s = 0; s < 6; ++s)
          for (int k = 0; k < 7; ++k)
            std::snprintf(text[p][s][k], sizeof text[p][s][k], "jpeg %s %s%s",
                          p ? "progressive" : "baseline", kSpaces[s], kSamplings[k]);
    }
  };
  static const Names names;  // built once, thread-safely (a function-local static)
  int s = space == JCS_GRAYSCALE ? 0
          : space == JCS_RGB     ? 1
          : space == JCS_YCbCr   ? 2
          : space == JCS_CMYK    ? 3
          : space == JCS_YCCK    ? 4
                                 : 5;
  int k = 0;
  for (int i = 0; i < 7; ++i)
    if (std::strcmp(sampling, kSamplings[i]) == 0) k = i;
  return names.text[progressive ? 1 : 0][s][k];
}

struct Header {
  int width = 0, height = 0, components = 0;
  const char* format = "";
  int orientation = 1;
};

// Pass 1 (header, markers) when pixels == nullptr, else the whole decode
// into pixels (width * height * components bytes). Returns an oxi_status.
int32_t Run(const uint8_t* data, size_t n, const sdk::DecodeLimits* limits, Header* h,
            uint8_t* pixels, ErrorState* err) {
  jpeg_decompress_struct d;
  jpeg_progress_mgr progress;
  d.err = jpeg_std_error(&err->mgr);
  err->mgr.error_exit = OnError;
  err->mgr.emit_message = OnMessage;
  err->message[0] = '\0';
  err->truncated = false;
  if (setjmp(err->jump)) {
    jpeg_destroy_decompress(&d);
    return OXI_DATA_LOSS;
  }
  jpeg_create_decompress(&d);
  progress.progress_monitor = OnProgress;
  d.progress = &progress;
  jpeg_mem_src(&d, data, static_cast<unsigned long>(n));
  jpeg_save_markers(&d, JPEG_APP0 + 1, 0xFFFF);
  jpeg_read_header(&d, TRUE);
  if (err->truncated) {
    std::snprintf(err->message, sizeof err->message, "truncated: the file ends in the header");
    jpeg_destroy_decompress(&d);
    return OXI_DATA_LOSS;
  }
  if (pixels == nullptr) {
    h->width = static_cast<int>(d.image_width);
    h->height = static_cast<int>(d.image_height);
    h->components = d.num_components;
    h->format = FormatName(d.progressive_mode, d.jpeg_color_space, Sampling(d));
    int exif = -1, xmp = -1;
    bool seen_exif = false;
    for (jpeg_saved_marker_ptr m = d.marker_list; m != nullptr; m = m->next) {
      static const char kXmp[] = "http://ns.adobe.com/xap/1.0/";
      if (!seen_exif && m->data_length >= 6 && std::memcmp(m->data, "Exif\0\0", 6) == 0) {
        seen_exif = true;  // Pillow keeps the first
        exif = sdk::pillow::ExifOrientation(m->data, m->data_length);
      } else if (xmp < 0 && m->data_length > sizeof kXmp &&
                 std::memcmp(m->data, kXmp, sizeof kXmp) == 0) {
        xmp = sdk::pillow::XmpOrientation(m->data + sizeof kXmp, m->data_length - sizeof kXmp);
      }
    }
    h->orientation = sdk::pillow::Orientation(exif, xmp);
    jpeg_destroy_decompress(&d);
    return OXI_OK;
  }
  (void)limits;
  d.out_color_space = h->components == 1 ? JCS_GRAYSCALE : h->components == 3 ? JCS_RGB : JCS_CMYK;
  jpeg_start_decompress(&d);
  const size_t stride = static_cast<size_t>(h->width) * h->components;
  while (d.output_scanline < d.output_height) {
    JSAMPROW row = pixels + d.output_scanline * stride;
    jpeg_read_scanlines(&d, &row, 1);
    if (err->truncated) break;
  }
  if (!err->truncated) jpeg_finish_decompress(&d);
  jpeg_destroy_decompress(&d);
  if (err->truncated) {
    std::snprintf(err->message, sizeof err->message,
                  "truncated: the file ends before the image data does");
    return OXI_DATA_LOSS;
  }
  return OXI_OK;
}

struct JpegCodec {
  static int32_t Sniff(const uint8_t* p, size_t n) {
    return n >= 3 && p[0] == 0xFF && p[1] == 0xD8 && p[2] == 0xFF ? 100 : 0;
  }

  static sdk::StatusOr<sdk::RgbImage> DecodeRgb(const sdk::Bytes& in,
                                                const sdk::DecodeLimits& limits) {
    if (Sniff(in.data, in.size) == 0) return sdk::InvalidArgumentError("not a JPEG file");
    ErrorState err;
    Header h;
    int32_t rc = Run(in.data, in.size, &limits, &h, nullptr, &err);
    if (rc != OXI_OK) return sdk::Status(rc, std::string("jpeg: ") + err.message);
    if (h.components != 1 && h.components != 3 && h.components != 4) {
      return sdk::Status(OXI_UNIMPLEMENTED,
                         "jpeg: " + std::to_string(h.components) + " components (1, 3 or 4)");
    }
    auto img = sdk::pillow::NewRgb(h.width, h.height, limits, h.format);
    if (!img.ok()) return img.status();
    std::vector<uint8_t> raw(static_cast<size_t>(h.width) * h.height * h.components);
    rc = Run(in.data, in.size, &limits, &h, raw.data(), &err);
    if (rc != OXI_OK) return sdk::Status(rc, std::string("jpeg: ") + err.message);
    uint8_t* out = img->pixels.data();
    const size_t count = static_cast<size_t>(h.width) * h.height;
    for (size_t i = 0; i < count; ++i, out += 3) {
      if (h.components == 1) {
        out[0] = out[1] = out[2] = raw[i];
      } else if (h.components == 3) {
        std::memcpy(out, &raw[i * 3], 3);
      } else {
        uint8_t cmyk[4];
        for (int c = 0; c < 4; ++c) cmyk[c] = static_cast<uint8_t>(255 - raw[i * 4 + c]);
        sdk::pillow::CmykToRgb(cmyk, out);
      }
    }
    sdk::pillow::ApplyOrientation(h.orientation, &*img);
    return img;
  }
};

}  // namespace
}  // namespace jpeg_codec
}  // namespace oxinfer

OXINFER_CODEC_PLUGIN(oxinfer::jpeg_codec::JpegCodec, "jpeg", "1.0.0",
                     "JPEG decoder (libjpeg-turbo): baseline, progressive, gray, CMYK, YCCK",
                     "jpeg,jpg")
