#include "core/engine/sequence_pool.h"

#include "absl/status/status.h"
#include "absl/strings/str_format.h"

namespace oxinfer::engine {

SequencePool::SequencePool(int32_t size) : in_use_(size > 0 ? size : 0, false) {}

absl::StatusOr<int32_t> SequencePool::Acquire() {
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < in_use_.size(); ++i) {
    if (!in_use_[i]) {
      in_use_[i] = true;
      return static_cast<int32_t>(i);
    }
  }
  return absl::ResourceExhaustedError(absl::StrFormat(
      "all %d sessions of this engine are in use (the model was opened for %d concurrent "
      "sequences: EngineOptions::max_sessions); end one first",
      in_use_.size(), in_use_.size()));
}

void SequencePool::Release(int32_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  if (id >= 0 && static_cast<size_t>(id) < in_use_.size()) in_use_[id] = false;
}

}  // namespace oxinfer::engine
