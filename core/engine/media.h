// Media a prompt can carry (images, audio clips) and what a model makes of
// them: the tokens that replace the attachment's placeholder, with the
// embedding rows (soft tokens) that some of those positions take.
#ifndef OXINFER_CORE_ENGINE_MEDIA_H_
#define OXINFER_CORE_ENGINE_MEDIA_H_

#include <cstdint>
#include <vector>

#include "core/engine/image.h"

namespace oxinfer::engine {

// Mono audio samples in [-1, 1].
struct Audio {
  int32_t sample_rate = 16000;
  std::vector<float> samples;
};

// An encoded attachment (model_abi.h oxi_media_output).
struct EncodedMedia {
  int32_t placeholder = 0;      // the token the chat template renders for it
  std::vector<int32_t> tokens;  // what replaces the placeholder
  std::vector<uint8_t> mask;    // per token: 1 where the embedding row is used
  std::vector<float> rows;      // [tokens][hidden_size]; zero where the mask is 0
  int64_t n_soft_tokens = 0;
};

}  // namespace oxinfer::engine

#endif  // OXINFER_CORE_ENGINE_MEDIA_H_
