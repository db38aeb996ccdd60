#include "core/engine/media_parts.h"

#include <cstdio>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"

namespace oxinfer::engine {

namespace {

ContentPart FromClip(media::Audio clip) {
  auto a = std::make_shared<Audio>();
  a->sample_rate = clip.sample_rate;
  a->samples = std::move(clip.samples);
  return ContentPart::FromAudio(std::move(a));
}

ContentPart FromRgb(media::RgbImage rgb) {
  auto image = std::make_shared<Image>();
  image->width = rgb.width;
  image->height = rgb.height;
  image->channels = 3;
  image->pixels = std::move(rgb.pixels);
  return ContentPart::FromImage(std::move(image));
}

}  // namespace

absl::StatusOr<ContentPart> DecodeMediaPart(const PluginRegistry& registry, ContentPart::Type type,
                                            absl::string_view bytes, const std::string& name,
                                            const media::DecodeOptions& limits) {
  if (type == ContentPart::Type::kAudio) {
    auto clip = media::DecodeAudio(registry, bytes, name, 16000, limits);
    if (!clip.ok()) return clip.status();
    return FromClip(*std::move(clip));
  }
  auto rgb = media::DecodeImage(registry, bytes, name, limits);
  if (!rgb.ok()) return rgb.status();
  return FromRgb(*std::move(rgb));
}

absl::StatusOr<ContentPart> LoadMediaPart(const PluginRegistry& registry, ContentPart::Type type,
                                          const std::string& path,
                                          const media::DecodeOptions& limits) {
  if (type == ContentPart::Type::kAudio) {
    auto clip = media::LoadAudio(registry, path, 16000, limits);
    if (!clip.ok()) return clip.status();
    return FromClip(*std::move(clip));
  }
  auto rgb = media::LoadImage(registry, path, limits);
  if (!rgb.ok()) return rgb.status();
  return FromRgb(*std::move(rgb));
}

MediaLoader RegistryMediaLoader(const PluginRegistry& registry, bool allow_paths,
                                const media::DecodeOptions& limits) {
  return [&registry, allow_paths, limits](const MediaReference& ref,
                                          const std::string& name) -> absl::StatusOr<ContentPart> {
    if (ref.source == MediaReference::Source::kBytes) {
      return DecodeMediaPart(registry, ref.type, ref.data, name, limits);
    }
    if (!allow_paths) {
      return absl::InvalidArgumentError(
          "local paths are not accepted here; send the file as a base64 data: URL");
    }
    return LoadMediaPart(registry, ref.type, ref.data, limits);
  };
}

MediaLoader PlaceholderMediaLoader() {
  return [](const MediaReference& ref, const std::string&) -> absl::StatusOr<ContentPart> {
    if (ref.source == MediaReference::Source::kPath) {
      std::FILE* f = std::fopen(ref.data.c_str(), "rb");
      if (f == nullptr) {
        return absl::NotFoundError(absl::StrCat(ref.data, ": cannot open the file"));
      }
      std::fclose(f);
    }
    ContentPart part;
    part.type = ref.type;
    return part;
  };
}

}  // namespace oxinfer::engine
