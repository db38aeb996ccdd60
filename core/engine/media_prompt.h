// Prompt assembly for attachments, as transformers' processors do it: the
// template renders one placeholder token per image or audio part; each
// placeholder becomes the tokens the model's encode_media gives for its
// attachment (Gemma 4: <|image> <|image|>*n <image|>), whose soft-token rows
// replace those positions' embeddings.
#ifndef OXINFER_CORE_ENGINE_MEDIA_PROMPT_H_
#define OXINFER_CORE_ENGINE_MEDIA_PROMPT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/engine/generation.h"
#include "core/engine/media.h"
#include "core/engine/message.h"

namespace oxinfer::engine {

// Encodes one attachment (an image at max_soft_tokens, 0: the model's
// default; or an audio clip).
using MediaEncoder = std::function<absl::StatusOr<std::shared_ptr<const EncodedMedia>>(
    const ContentPart& part, int32_t max_soft_tokens)>;

// Expands prompt->tokens in place and sets prompt->media: the i-th
// placeholder (in token order) takes the i-th attachment of `messages` (in
// message and part order), as the processor replaces them in the text. A
// prompt without attachments is left as it is (a placeholder typed in the text
// then reaches the model as itself). INVALID_ARGUMENT when the placeholders
// and the attachments do not pair up.
absl::Status ExpandMedia(const std::vector<Message>& messages, int32_t max_soft_tokens,
                         int32_t hidden_size, const MediaEncoder& encode, Prompt* prompt);

}  // namespace oxinfer::engine

#endif  // OXINFER_CORE_ENGINE_MEDIA_PROMPT_H_
