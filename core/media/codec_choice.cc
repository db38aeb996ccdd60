#include "core/media/codec_choice.h"

#include <algorithm>
#include <cctype>

#include "absl/strings/str_format.h"

namespace oxinfer::media {
namespace {

// The table's 2.1 entry for `media`, or null (a 2.0 codec decodes neither).
bool Decodes(const oxi_codec_iface* c, uint32_t media) {
  if (!OXI_HAS_FIELD(c, oxi_codec_iface, free_audio) || c->sniff == nullptr) return false;
  if ((c->media & media) == 0) return false;
  if (media == OXI_MEDIA_IMAGE) return c->decode_image_rgb != nullptr && c->free_image != nullptr;
  return c->decode_audio != nullptr && c->free_audio != nullptr;
}

// "89 50 4e 47 0d 0a 1a 0a (.PNG....)": the first bytes, for messages.
std::string Head(absl::string_view bytes) {
  const size_t n = std::min<size_t>(bytes.size(), 8);
  std::string hex, text;
  for (size_t i = 0; i < n; ++i) {
    const unsigned char c = static_cast<unsigned char>(bytes[i]);
    absl::StrAppendFormat(&hex, "%s%02x", i ? " " : "", c);
    text += std::isprint(c) ? static_cast<char>(c) : '.';
  }
  return n == 0 ? "an empty file" : absl::StrFormat("first bytes %s (%s)", hex, text);
}

}  // namespace

ChosenCodec BestCodec(const PluginRegistry& registry, absl::string_view bytes, uint32_t media) {
  ChosenCodec best;
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  for (const PluginRecord* r : registry.Loaded(OXI_PLUGIN_CODEC)) {
    const auto* c = static_cast<const oxi_codec_iface*>(r->iface);
    if (!Decodes(c, media) || bytes.empty()) continue;
    const int32_t score = c->sniff(data, bytes.size());
    if (score > best.score) best = ChosenCodec{r, c, score};
  }
  return best;
}

absl::StatusOr<ChosenCodec> ChooseCodec(const PluginRegistry& registry, absl::string_view bytes,
                                        uint32_t media, const std::string& name) {
  ChosenCodec best = BestCodec(registry, bytes, media);
  if (best.record != nullptr) return best;
  const uint32_t other = media == OXI_MEDIA_IMAGE ? OXI_MEDIA_AUDIO : OXI_MEDIA_IMAGE;
  const ChosenCodec alt = BestCodec(registry, bytes, other);
  const char* want = media == OXI_MEDIA_IMAGE ? "image" : "audio";
  if (alt.record != nullptr) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: not an %s file: codec '%s' recognises it as %s", name, want,
                        alt.record->name, other == OXI_MEDIA_IMAGE ? "an image" : "audio"));
  }
  return absl::NotFoundError(
      absl::StrFormat("%s: no codec plugin recognises this as an %s file (%s; see `oxinfer "
                      "--plugins` for the formats)",
                      name, want, Head(bytes)));
}

}  // namespace oxinfer::media
