#include "core/engine/media_prompt.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/str_format.h"

namespace oxinfer::engine {
namespace {

const char* KindName(const ContentPart& part) {
  return part.type == ContentPart::Type::kImage ? "image" : "audio clip";
}

// FNV-1a over the attachment's tokens and rows: equal hashes, equal soft
// tokens (for prefix reuse; never 0, the key of text).
uint64_t MediaKey(const EncodedMedia& m) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](const void* data, size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  };
  mix(m.tokens.data(), m.tokens.size() * sizeof(int32_t));
  mix(m.rows.data(), m.rows.size() * sizeof(float));
  return h == 0 ? 1 : h;
}

}  // namespace

absl::Status ExpandMedia(const std::vector<Message>& messages, int32_t max_soft_tokens,
                         int32_t hidden_size, const MediaEncoder& encode, Prompt* prompt) {
  std::vector<const ContentPart*> parts;
  for (const Message& m : messages) {
    for (const ContentPart& p : m.content) {
      if (p.is_media()) parts.push_back(&p);
    }
  }
  if (parts.empty()) return absl::OkStatus();
  if (!encode) {
    return absl::FailedPreconditionError("the prompt has attachments but this model takes none");
  }
  std::vector<std::shared_ptr<const EncodedMedia>> encoded;
  std::vector<int32_t> placeholders;
  for (size_t i = 0; i < parts.size(); ++i) {
    auto e = encode(*parts[i], max_soft_tokens);
    if (!e.ok()) {
      return absl::Status(e.status().code(),
                          absl::StrFormat("attachment %d (%s): %s", i + 1, KindName(*parts[i]),
                                          e.status().message()));
    }
    if ((*e)->rows.size() != (*e)->tokens.size() * static_cast<size_t>(hidden_size) ||
        (*e)->mask.size() != (*e)->tokens.size()) {
      return absl::InternalError(absl::StrFormat("attachment %d: rows of the wrong size", i + 1));
    }
    placeholders.push_back((*e)->placeholder);
    encoded.push_back(*std::move(e));
  }

  auto media = std::make_shared<PromptMedia>();
  media->hidden_size = hidden_size;
  std::vector<int32_t> tokens;
  size_t next = 0;
  for (const int32_t t : prompt->tokens) {
    if (next < encoded.size() && t == placeholders[next]) {
      const EncodedMedia& m = *encoded[next];
      const uint64_t key = MediaKey(m);
      tokens.insert(tokens.end(), m.tokens.begin(), m.tokens.end());
      media->mask.insert(media->mask.end(), m.mask.begin(), m.mask.end());
      media->rows.insert(media->rows.end(), m.rows.begin(), m.rows.end());
      media->keys.insert(media->keys.end(), m.tokens.size(), key);
      media->n_soft_tokens +=
          std::count_if(m.mask.begin(), m.mask.end(), [](uint8_t v) { return v != 0; });
      ++next;
      continue;
    }
    if (std::find(placeholders.begin(), placeholders.end(), t) != placeholders.end()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "the prompt has more media placeholders (token %d) than attachments: is one typed in "
          "the text?",
          t));
    }
    tokens.push_back(t);
    media->mask.push_back(0);
    media->rows.resize(media->rows.size() + hidden_size, 0.0f);
    media->keys.push_back(0);
  }
  if (next < encoded.size()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("the chat template rendered no placeholder for attachment %d (%s) of %d",
                        next + 1, KindName(*parts[next]), parts.size()));
  }
  prompt->tokens = std::move(tokens);
  prompt->media = std::move(media);
  return absl::OkStatus();
}

}  // namespace oxinfer::engine
