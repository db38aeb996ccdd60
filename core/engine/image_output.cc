#include "core/engine/image_output.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "core/engine/atomic_file.h"
#include "core/host/abi_status.h"
#include "oxinfer/codec_abi.h"

namespace oxinfer::engine {
namespace {

// The codec that writes `format`, or null.
const PluginRecord* FindEncoder(const PluginRegistry& registry, absl::string_view format) {
  for (const PluginRecord* r : registry.Loaded(OXI_PLUGIN_CODEC)) {
    const auto* codec = static_cast<const oxi_codec_iface*>(r->iface);
    if (!OXI_HAS_FIELD(codec, oxi_codec_iface, free_buffer) || codec->encode_image == nullptr ||
        codec->formats == nullptr) {
      continue;
    }
    for (absl::string_view f : absl::StrSplit(codec->formats, ',')) {
      if (absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(f), format)) return r;
    }
  }
  return nullptr;
}

absl::Status NoEncoder(absl::string_view format) {
  return absl::NotFoundError(
      absl::StrFormat("no codec plugin writes .%s files (see `oxinfer --plugins`)", format));
}

absl::Status NoFormat(const std::string& path) {
  return absl::InvalidArgumentError(absl::StrFormat("%s: no extension to pick a format", path));
}

}  // namespace

std::string ImageFormatOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  const size_t dot = path.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  return absl::AsciiStrToLower(path.substr(dot + 1));
}

absl::StatusOr<std::string> EncodeImage(const PluginRegistry& registry, const Image& image,
                                        absl::string_view format) {
  const PluginRecord* r = FindEncoder(registry, format);
  if (r == nullptr) return NoEncoder(format);
  if (image.width <= 0 || image.height <= 0 ||
      image.pixels.size() != static_cast<size_t>(image.width) * image.height * image.channels) {
    return absl::InvalidArgumentError(
        absl::StrFormat("an image of %dx%dx%d with %d bytes of pixels", image.width, image.height,
                        image.channels, image.pixels.size()));
  }
  const auto* codec = static_cast<const oxi_codec_iface*>(r->iface);
  const oxi_image view = ImageView(image);
  const std::string fmt(format);
  uint8_t* data = nullptr;
  size_t size = 0;
  char error[512] = {};
  const int32_t rc = codec->encode_image(&view, fmt.c_str(), &data, &size, error, sizeof error);
  std::string bytes;
  if (rc == OXI_OK && data != nullptr) bytes.assign(reinterpret_cast<const char*>(data), size);
  if (data != nullptr && codec->free_buffer != nullptr) codec->free_buffer(data);
  if (rc != OXI_OK) {
    return StatusFromPlugin(rc, absl::StrFormat("%s: encoding %s failed", r->name, fmt),
                            PluginText(error, sizeof error));
  }
  return bytes;
}

absl::Status CheckImageDestination(const PluginRegistry& registry, const std::string& path) {
  const std::string format = ImageFormatOf(path);
  if (format.empty()) return NoFormat(path);
  if (FindEncoder(registry, format) == nullptr) return NoEncoder(format);
  return CheckFolderWritable(path);
}

absl::Status WriteImageFile(const PluginRegistry& registry, const Image& image,
                            const std::string& path) {
  const std::string format = ImageFormatOf(path);
  if (format.empty()) return NoFormat(path);
  auto bytes = EncodeImage(registry, image, format);
  if (!bytes.ok()) return bytes.status();
  return WriteFileAtomically(path, *bytes);
}

}  // namespace oxinfer::engine
