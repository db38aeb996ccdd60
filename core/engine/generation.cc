#include "core/engine/generation.h"

namespace oxinfer::engine {

std::vector<float> PromptMedia::SoftTokens() const {
  std::vector<float> out;
  out.reserve(static_cast<size_t>(n_soft_tokens) * hidden_size);
  for (size_t i = 0; i < mask.size(); ++i) {
    if (!mask[i]) continue;
    const float* row = rows.data() + i * static_cast<size_t>(hidden_size);
    out.insert(out.end(), row, row + hidden_size);
  }
  return out;
}

const char* StopReasonName(StopReason reason) {
  switch (reason) {
    case StopReason::kStopToken:
      return "stop token";
    case StopReason::kStopString:
      return "stop string";
    case StopReason::kMaxTokens:
      return "max tokens";
    case StopReason::kContextFull:
      return "context full";
    case StopReason::kCancelled:
      return "cancelled";
  }
  return "?";
}

}  // namespace oxinfer::engine
