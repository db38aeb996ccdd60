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
#include "core/engine/media_reference.h"
#include "core/engine/message.h"
#include "core/media/media.h"
#include "core/plugin_registry.h"

namespace oxinfer::engine {

// An image or audio part from encoded file bytes; `name` stands for the data
// in messages ("parts[1]").
absl::StatusOr<ContentPart> DecodeMediaPart(const PluginRegistry& registry, ContentPart::Type type,
                                            absl::string_view bytes, const std::string& name,
                                            const media::DecodeOptions& limits = {});

// The same from a file; errors name `path`.
absl::StatusOr<ContentPart> LoadMediaPart(const PluginRegistry& registry, ContentPart::Type type,
                                          const std::string& path,
                                          const media::DecodeOptions& limits = {});

// Decodes the media parts of conversations (conversation_json.h) with the
// registry's codecs. Local paths are read only when `allow_paths` (the CLI and
// the C API; not a server, whose clients must not read its files).
// `registry` must outlive the loader.
MediaLoader RegistryMediaLoader(const PluginRegistry& registry, bool allow_paths,
                                const media::DecodeOptions& limits = {});

// For rendering a prompt without a model: placeholder parts (no pixels or
// samples); a path must name a file that can be opened.
MediaLoader PlaceholderMediaLoader();

}  // namespace oxinfer::engine

#endif  // OXINFER_CORE_ENGINE_MEDIA_PARTS_H_
