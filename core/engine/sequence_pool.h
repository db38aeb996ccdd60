// The model's sequence ids (0 <= id < max_sequences), one per live session.
// Thread-safe.
#ifndef OXINFER_CORE_ENGINE_SEQUENCE_POOL_H_
#define OXINFER_CORE_ENGINE_SEQUENCE_POOL_H_

#include <cstdint>
#include <mutex>
#include <vector>

#include "absl/status/statusor.h"

namespace oxinfer::engine {

class SequencePool {
 public:
  explicit SequencePool(int32_t size);

  // The lowest free id; RESOURCE_EXHAUSTED naming the limit when none is.
  absl::StatusOr<int32_t> Acquire();
  void Release(int32_t id);
  int32_t size() const { return static_cast<int32_t>(in_use_.size()); }

 private:
  std::mutex mu_;
  std::vector<bool> in_use_;
};

}  // namespace oxinfer::engine

#endif  // OXINFER_CORE_ENGINE_SEQUENCE_POOL_H_
