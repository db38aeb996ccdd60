#include "core/engine/generation.h"

namespace oxinfer::engine {

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
