// LoadImage / DecodeImage: the chosen codec's decode_image_rgb, under the
// limits; the result copied out of the plugin's memory.
#include "absl/strings/str_format.h"
#include "core/mapped_file.h"
#include "core/media/codec_choice.h"
#include "core/media/media.h"

namespace oxinfer::media {

absl::StatusOr<RgbImage> DecodeImage(const PluginRegistry& registry, absl::string_view bytes,
                                     const std::string& name, const DecodeOptions& options) {
  auto chosen = ChooseCodec(registry, bytes, OXI_MEDIA_IMAGE, name);
  if (!chosen.ok()) return chosen.status();
  const oxi_codec_iface* codec = chosen->codec;
  const oxi_decode_limits limits = {sizeof(oxi_decode_limits), options.max_pixels,
                                    options.max_audio_seconds};
  oxi_image out = {};
  out.struct_size = sizeof out;
  const char* format = nullptr;
  char error[1024] = {};
  const int32_t rc =
      codec->decode_image_rgb(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &limits,
                              &out, &format, error, sizeof error);
  const std::string& plugin = chosen->record->name;
  if (rc != OXI_OK) {
    if (out.pixels != nullptr) codec->free_image(&out);
    return absl::Status(static_cast<absl::StatusCode>(rc),
                        absl::StrFormat("%s: codec '%s' cannot decode it: %s", name, plugin,
                                        error[0] ? error : "(no message)"));
  }
  RgbImage img;
  img.width = out.width;
  img.height = out.height;
  img.codec = plugin;
  img.format = format != nullptr && format[0] ? format : plugin;
  const bool sane = out.pixels != nullptr && out.channels == 3 && out.width > 0 && out.height > 0 &&
                    out.width <= (1 << 24) && out.height <= (1 << 24);
  if (sane) {
    img.pixels.assign(out.pixels, out.pixels + size_t(out.width) * out.height * 3);
  }
  codec->free_image(&out);
  if (!sane) {
    return absl::InternalError(
        absl::StrFormat("%s: codec '%s' returned an invalid image (%dx%dx%d)", name, plugin,
                        out.width, out.height, out.channels));
  }
  return img;
}

absl::StatusOr<RgbImage> LoadImage(const PluginRegistry& registry, const std::string& path,
                                   const DecodeOptions& options) {
  auto bytes = ReadFileToString(path, options.max_file_bytes);
  if (!bytes.ok()) return bytes.status();
  return DecodeImage(registry, *bytes, path, options);
}

}  // namespace oxinfer::media
