// Speculative decoding: a drafter proposes the next few tokens of a
// sequence, the main model verifies them all in one multi-token forward
// (scheduler.cc), and the sequence keeps the longest prefix the main model
// agrees with plus the main model's own next token.
#ifndef OXINFER_CORE_ENGINE_DRAFTER_H_
#define OXINFER_CORE_ENGINE_DRAFTER_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/engine/model.h"

namespace oxinfer::engine {

class Drafter {
 public:
  virtual ~Drafter() = default;
  // Up to n tokens expected to follow `next` (sampled, not yet fed) on
  // `seq`, which holds `held`. Called on the scheduler's worker with the
  // model lock held, before the forward that feeds `next`; the drafter must
  // leave `seq` as it found it.
  virtual absl::StatusOr<std::vector<int32_t>> Draft(int32_t seq, absl::Span<const int32_t> held,
                                                     int32_t next, int32_t n) = 0;
};

// The checkpoint's own drafting head (Model::Draft: Qwen 3.5's MTP layer).
class SelfDrafter : public Drafter {
 public:
  explicit SelfDrafter(Model* model) : model_(model) {}
  absl::StatusOr<std::vector<int32_t>> Draft(int32_t seq, absl::Span<const int32_t> held,
                                             int32_t next, int32_t n) override;

 private:
  Model* const model_;
};

struct SpeculativeOptions {
  Drafter* drafter = nullptr;  // null: plain decoding
  // Drafts per round: starts at max_draft, adapts between min_draft and
  // max_draft from how many of the last round's drafts were accepted.
  int32_t max_draft = 6;
  int32_t min_draft = 2;
};

// The next round's draft length after `accepted` of `drafted` were taken:
// one more after a fully accepted round, one fewer when less than half were.
int32_t NextDraftLength(const SpeculativeOptions& options, int32_t current, int32_t drafted,
                        int32_t accepted);

}  // namespace oxinfer::engine

#endif  // OXINFER_CORE_ENGINE_DRAFTER_H_
