// Picks the codec plugin for a file's bytes: every loaded codec's sniff()
// scores them, the highest wins (ties: the registry's order).
#ifndef OXINFER_CORE_MEDIA_CODEC_CHOICE_H_
#define OXINFER_CORE_MEDIA_CODEC_CHOICE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/plugin_registry.h"
#include "oxinfer/codec_abi.h"

namespace oxinfer::media {

struct ChosenCodec {
  const PluginRecord* record = nullptr;
  const oxi_codec_iface* codec = nullptr;
  int32_t score = 0;
};

// The best codec that decodes `media` (OXI_MEDIA_IMAGE / OXI_MEDIA_AUDIO); if
// none, NOT_FOUND naming the file, what its first bytes look like, and, when
// a codec of the other kind recognises it, that.
absl::StatusOr<ChosenCodec> ChooseCodec(const PluginRegistry& registry, absl::string_view bytes,
                                        uint32_t media, const std::string& name);

// The best codec of either kind, or a null record.
ChosenCodec BestCodec(const PluginRegistry& registry, absl::string_view bytes, uint32_t media);

}  // namespace oxinfer::media

#endif  // OXINFER_CORE_MEDIA_CODEC_CHOICE_H_
