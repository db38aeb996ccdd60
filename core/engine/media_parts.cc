#include "core/engine/media_parts.h"

#include <memory>
#include <utility>

namespace oxinfer::engine {

absl::StatusOr<ContentPart> DecodeMediaPart(const PluginRegistry& registry, ContentPart::Type type,
                                            absl::string_view bytes, const std::string& name,
                                            const media::DecodeOptions& limits) {
  if (type == ContentPart::Type::kAudio) {
    auto clip = media::DecodeAudio(registry, bytes, name, 16000, limits);
    if (!clip.ok()) return clip.status();
    auto a = std::make_shared<Audio>();
    a->sample_rate = clip->sample_rate;
    a->samples = std::move(clip->samples);
    return ContentPart::FromAudio(std::move(a));
  }
  auto rgb = media::DecodeImage(registry, bytes, name, limits);
  if (!rgb.ok()) return rgb.status();
  auto image = std::make_shared<Image>();
  image->width = rgb->width;
  image->height = rgb->height;
  image->channels = 3;
  image->pixels = std::move(rgb->pixels);
  return ContentPart::FromImage(std::move(image));
}

}  // namespace oxinfer::engine
