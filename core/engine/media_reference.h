// Image and audio parts of OpenAI-style messages, as API clients and
// transformers' chat templates spell them:
//
//   {"type": "image_url", "image_url": {"url": "data:image/png;base64,..."}}  OpenAI
//   {"type": "input_audio", "input_audio": {"data": "<base64>", "format": "wav"}}
//   {"type": "image", "url" | "path" | "image": "..."}                        transformers
//   {"type": "audio", "url" | "path" | "audio": "..."}
//
// A URL is a base64 data: URL, a file:// URL or a local path; http(s) URLs
// are refused, since nothing is fetched. The reference is parsed here; a
// MediaLoader (media_parts.h) reads and decodes it.
#ifndef OXINFER_CORE_ENGINE_MEDIA_REFERENCE_H_
#define OXINFER_CORE_ENGINE_MEDIA_REFERENCE_H_

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/chat/value.h"
#include "core/engine/message.h"

namespace oxinfer::engine {

struct MediaReference {
  enum class Source { kBytes, kPath };
  ContentPart::Type type = ContentPart::Type::kImage;
  Source source = Source::kBytes;
  std::string data;  // the encoded file (kBytes) or its path (kPath)
};

// Whether a part's "type" names an image or audio part.
bool IsMediaPartType(absl::string_view type);

// The reference a media part makes; INVALID_ARGUMENT saying what is wrong
// (the caller adds where).
absl::StatusOr<MediaReference> ParseMediaReference(const chat::Value& part);

// Turns a reference into the content part the model receives; `name` stands
// for the data in messages ("messages.json: message 1, content part 0").
using MediaLoader =
    std::function<absl::StatusOr<ContentPart>(const MediaReference&, const std::string& name)>;

}  // namespace oxinfer::engine

#endif  // OXINFER_CORE_ENGINE_MEDIA_REFERENCE_H_
