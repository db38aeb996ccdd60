// The WebP codec plugin (libwebp): decodes as Pillow's WebPImagePlugin does,
// through the animation decoder (WebPAnimDecoder, RGBA, non-premultiplied),
// taking the first frame composed on its canvas; then convert("RGB") drops
// the alpha, and the EXIF / XMP chunks give the orientation. The canvas size
// comes from the container (WebPDemux) and is checked before the decoder
// allocates it.
#include <webp/decode.h>
#include <webp/demux.h>

#include <cstring>
#include <string>

#include "oxinfer/sdk/codec.hpp"
#include "oxinfer/sdk/pillow.hpp"

namespace oxinfer {
namespace webp_codec {
namespace {

// Owns a demuxer / an animation decoder.
struct Demux {
  WebPDemuxer* d;
  ~Demux() { WebPDemuxDelete(d); }
};
struct AnimDecoder {
  WebPAnimDecoder* d;
  ~AnimDecoder() { WebPAnimDecoderDelete(d); }
};

int ChunkOrientation(WebPDemuxer* d, const char* fourcc, bool xmp) {
  WebPChunkIterator it;
  if (!WebPDemuxGetChunk(d, fourcc, 1, &it)) return -1;
  const int o = xmp ? sdk::pillow::XmpOrientation(it.chunk.bytes, it.chunk.size)
                    : sdk::pillow::ExifOrientation(it.chunk.bytes, it.chunk.size);
  WebPDemuxReleaseChunkIterator(&it);
  return o;
}

const char* FormatName(const WebPBitstreamFeatures& f) {
  if (f.has_animation) return f.has_alpha ? "webp animated with alpha" : "webp animated";
  if (f.format == 2) return f.has_alpha ? "webp lossless with alpha" : "webp lossless";
  return f.has_alpha ? "webp lossy with alpha" : "webp lossy";
}

struct WebpCodec {
  static int32_t Sniff(const uint8_t* p, size_t n) {
    return n >= 12 && std::memcmp(p, "RIFF", 4) == 0 && std::memcmp(p + 8, "WEBP", 4) == 0 ? 100
                                                                                           : 0;
  }

  static sdk::StatusOr<sdk::RgbImage> DecodeRgb(const sdk::Bytes& in,
                                                const sdk::DecodeLimits& limits) {
    if (Sniff(in.data, in.size) == 0)
      return sdk::InvalidArgumentError("webp: not a RIFF/WEBP file");
    WebPBitstreamFeatures features;
    const VP8StatusCode fs = WebPGetFeatures(in.data, in.size, &features);
    if (fs != VP8_STATUS_OK) {
      return sdk::DataLossError(fs == VP8_STATUS_NOT_ENOUGH_DATA
                                    ? "webp: truncated: the file ends in the header"
                                    : "webp: corrupt header (status " + std::to_string(fs) + ")");
    }
    const WebPData data = {in.data, in.size};
    Demux demux{WebPDemux(&data)};
    if (demux.d == nullptr) {
      return sdk::DataLossError(
          "webp: corrupt or truncated container (the RIFF chunks do not "
          "add up)");
    }
    const int64_t w = WebPDemuxGetI(demux.d, WEBP_FF_CANVAS_WIDTH);
    const int64_t h = WebPDemuxGetI(demux.d, WEBP_FF_CANVAS_HEIGHT);
    const int orientation = sdk::pillow::Orientation(ChunkOrientation(demux.d, "EXIF", false),
                                                     ChunkOrientation(demux.d, "XMP ", true));
    auto img = sdk::pillow::NewRgb(w, h, limits, FormatName(features));
    if (!img.ok()) return img.status().WithContext("webp");
    WebPAnimDecoderOptions opts;
    if (!WebPAnimDecoderOptionsInit(&opts)) return sdk::InternalError("webp: libwebp version");
    opts.color_mode = MODE_RGBA;
    opts.use_threads = 0;
    AnimDecoder dec{WebPAnimDecoderNew(&data, &opts)};
    if (dec.d == nullptr) return sdk::DataLossError("webp: the animation decoder refuses the file");
    uint8_t* rgba = nullptr;
    int timestamp = 0;
    if (!WebPAnimDecoderGetNext(dec.d, &rgba, &timestamp) || rgba == nullptr) {
      return sdk::DataLossError(
          "webp: corrupt or truncated image data (the first frame does not "
          "decode)");
    }
    const size_t count = static_cast<size_t>(w) * static_cast<size_t>(h);
    uint8_t* out = img->pixels.data();
    for (size_t i = 0; i < count; ++i) std::memcpy(out + 3 * i, rgba + 4 * i, 3);
    sdk::pillow::ApplyOrientation(orientation, &*img);
    return img;
  }
};

}  // namespace
}  // namespace webp_codec
}  // namespace oxinfer

OXINFER_CODEC_PLUGIN(oxinfer::webp_codec::WebpCodec, "webp", "1.0.0",
                     "WebP decoder (libwebp): lossy, lossless, alpha, first frame of animations",
                     "webp")
