// Image and audio content parts from encoded file bytes (as an API client
// gives them), decoded into the pixels and samples the model receives
// (core/media/media.h).
#ifndef OXINFER_CORE_ENGINE_MEDIA_PARTS_H_
#define OXINFER_CORE_ENGINE_MEDIA_PARTS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/engine/message.h"
#include "core/media/media.h"
#include "core/plugin_registry.h"

namespace oxinfer::engine {

// An image or audio part from encoded file bytes; `name` stands for the data
// in messages ("parts[1]").
absl::StatusOr<ContentPart> DecodeMediaPart(const PluginRegistry& registry, ContentPart::Type type,
                                            absl::string_view bytes, const std::string& name,
                                            const media::DecodeOptions& limits = {});

}  // namespace oxinfer::engine

#endif  // OXINFER_CORE_ENGINE_MEDIA_PARTS_H_
