// The GIF codec plugin (giflib): the first frame, as Pillow's GifImagePlugin
// composes it: a canvas of the logical screen (grown to hold the frame if it
// reaches past it), filled with the frame's transparent index if it has one,
// else index 0; the frame's rows (de-interlaced) drawn at its offset; then
// convert("RGB") through the frame's colour table (the local one, else the
// global one; indices past its end black; no table at all: gray). Records are
// read one at a time, so the frames after the first are never decoded.
#include <gif_lib.h>

#include <cstring>
#include <string>
#include <vector>

#include "oxinfer/sdk/codec.hpp"
#include "oxinfer/sdk/pillow.hpp"

namespace oxinfer {
namespace gif_codec {
namespace {

struct Reader {
  const uint8_t* data;
  size_t size, pos;
};

int ReadFn(GifFileType* g, GifByteType* buf, int len) {
  auto* r = static_cast<Reader*>(g->UserData);
  const size_t n = len < 0 ? 0 : std::min<size_t>(static_cast<size_t>(len), r->size - r->pos);
  std::memcpy(buf, r->data + r->pos, n);
  r->pos += n;
  return static_cast<int>(n);
}

struct Gif {
  GifFileType* g;
  ~Gif() {
    int err = 0;
    if (g != nullptr) DGifCloseFile(g, &err);
  }
};

sdk::Status Error(const char* what, int code) {
  const char* text = GifErrorString(code);
  std::string msg = std::string("gif: ") + what + ": " + (text ? text : "unknown giflib error");
  if (code == D_GIF_ERR_READ_FAILED || code == D_GIF_ERR_EOF_TOO_SOON) {
    msg = std::string("gif: truncated: ") + what + " (the file ends first)";
  }
  return sdk::DataLossError(msg);
}

struct GifCodec {
  static int32_t Sniff(const uint8_t* p, size_t n) {
    return n >= 6 && (std::memcmp(p, "GIF87a", 6) == 0 || std::memcmp(p, "GIF89a", 6) == 0) ? 100
                                                                                            : 0;
  }

  static sdk::StatusOr<sdk::RgbImage> DecodeRgb(const sdk::Bytes& in,
                                                const sdk::DecodeLimits& limits) {
    if (Sniff(in.data, in.size) == 0) return sdk::InvalidArgumentError("gif: not a GIF file");
    Reader reader{in.data, in.size, 0};
    int err = 0;
    Gif gif{DGifOpen(&reader, ReadFn, &err)};
    if (gif.g == nullptr) return Error("the header", err);
    GifFileType* g = gif.g;
    int transparent = -1;
    for (;;) {
      GifRecordType type;
      if (DGifGetRecordType(g, &type) == GIF_ERROR) return Error("a record", g->Error);
      if (type == TERMINATE_RECORD_TYPE) return sdk::DataLossError("gif: no image in the file");
      if (type == EXTENSION_RECORD_TYPE) {
        int code = 0;
        GifByteType* ext = nullptr;
        if (DGifGetExtension(g, &code, &ext) == GIF_ERROR) return Error("an extension", g->Error);
        if (code == GRAPHICS_EXT_FUNC_CODE && ext != nullptr && ext[0] >= 4) {
          transparent = (ext[1] & 1) ? ext[4] : -1;
        }
        while (ext != nullptr) {
          if (DGifGetExtensionNext(g, &ext) == GIF_ERROR) return Error("an extension", g->Error);
        }
        continue;
      }
      if (type != IMAGE_DESC_RECORD_TYPE) continue;
      if (DGifGetImageDesc(g) == GIF_ERROR) return Error("the image descriptor", g->Error);
      const GifImageDesc& d = g->Image;
      const int64_t x0 = d.Left, y0 = d.Top, fw = d.Width, fh = d.Height;
      const int64_t w = std::max<int64_t>(g->SWidth, x0 + fw);
      const int64_t h = std::max<int64_t>(g->SHeight, y0 + fh);
      auto img = sdk::pillow::NewRgb(w, h, limits, d.Interlace ? "gif interlaced" : "gif");
      if (!img.ok()) return img.status().WithContext("gif");
      if (fw <= 0 || fh <= 0) return sdk::DataLossError("gif: empty first frame");
      const ColorMapObject* map = d.ColorMap != nullptr ? d.ColorMap : g->SColorMap;
      uint8_t palette[256][3];
      std::memset(palette, 0, sizeof palette);
      for (int i = 0; i < 256; ++i) {
        if (map == nullptr) {
          palette[i][0] = palette[i][1] = palette[i][2] = static_cast<uint8_t>(i);
        } else if (i < map->ColorCount) {
          palette[i][0] = map->Colors[i].Red;
          palette[i][1] = map->Colors[i].Green;
          palette[i][2] = map->Colors[i].Blue;
        }
      }
      std::vector<uint8_t> index(static_cast<size_t>(w * h),
                                 static_cast<uint8_t>(transparent >= 0 ? transparent : 0));
      std::vector<GifPixelType> line(static_cast<size_t>(fw));
      static const int kStart[] = {0, 4, 2, 1}, kStep[] = {8, 8, 4, 2};
      const int passes = d.Interlace ? 4 : 1;
      for (int p = 0; p < passes; ++p) {
        for (int64_t y = d.Interlace ? kStart[p] : 0; y < fh; y += d.Interlace ? kStep[p] : 1) {
          if (DGifGetLine(g, line.data(), static_cast<int>(fw)) == GIF_ERROR) {
            return Error("the image data", g->Error);
          }
          std::memcpy(&index[static_cast<size_t>((y0 + y) * w + x0)], line.data(),
                      static_cast<size_t>(fw));
        }
      }
      uint8_t* out = img->pixels.data();
      for (size_t i = 0; i < index.size(); ++i) std::memcpy(out + 3 * i, palette[index[i]], 3);
      return img;
    }
  }
};

}  // namespace
}  // namespace gif_codec
}  // namespace oxinfer

OXINFER_CODEC_PLUGIN(oxinfer::gif_codec::GifCodec, "gif", "1.0.0",
                     "GIF decoder (giflib): the first frame, transparent and interlaced too", "gif")
