// Images written through the codec plugins: the codec is chosen by the
// format (a file's extension), the file written atomically.
#ifndef OXINFER_CORE_ENGINE_IMAGE_OUTPUT_H_
#define OXINFER_CORE_ENGINE_IMAGE_OUTPUT_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/engine/image.h"
#include "core/plugin_registry.h"

namespace oxinfer::engine {

// The lower-cased extension of `path` ("png"), "" when it has none.
std::string ImageFormatOf(const std::string& path);

// The encoded bytes, from the first loaded codec plugin (best score first)
// that writes `format`; NOT_FOUND naming the format when none does.
absl::StatusOr<std::string> EncodeImage(const PluginRegistry& registry, const Image& image,
                                        absl::string_view format);

// Whether `path` can be written as an image: a codec for its extension and a
// writable folder. Hosts call it before generating.
absl::Status CheckImageDestination(const PluginRegistry& registry, const std::string& path);

// Encodes by the extension and replaces the file atomically.
absl::Status WriteImageFile(const PluginRegistry& registry, const Image& image,
                            const std::string& path);

}  // namespace oxinfer::engine

#endif  // OXINFER_CORE_ENGINE_IMAGE_OUTPUT_H_
