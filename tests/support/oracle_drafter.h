// A drafter that knows the answer: it drafts a given token sequence (the
// prompt's ids, then the plain greedy reply), wrong wherever the position is
// a multiple of `wrong_every` (and nowhere else), so that a test can make
// every kind of verification round (all accepted, none, some) on purpose.
#ifndef OXINFER_TESTS_SUPPORT_ORACLE_DRAFTER_H_
#define OXINFER_TESTS_SUPPORT_ORACLE_DRAFTER_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/engine/drafter.h"

namespace oxinfer::testing {

class OracleDrafter : public engine::Drafter {
 public:
  // past_end: the token drafted beyond the sequence's end.
  OracleDrafter(std::vector<int32_t> sequence, int wrong_every, int32_t vocab, int32_t past_end)
      : sequence_(std::move(sequence)),
        wrong_every_(wrong_every),
        vocab_(vocab),
        past_end_(past_end) {}

  absl::StatusOr<std::vector<int32_t>> Draft(int32_t, absl::Span<const int32_t> held, int32_t,
                                             int32_t n) override {
    std::vector<int32_t> out;
    for (int32_t i = 0; i < n; ++i) {
      const size_t pos = held.size() + 1 + static_cast<size_t>(i);
      int32_t t = pos < sequence_.size() ? sequence_[pos] : past_end_;
      if (pos % wrong_every_ == 0) t = (t + 1) % vocab_;
      out.push_back(t);
    }
    return out;
  }

 private:
  std::vector<int32_t> sequence_;
  int wrong_every_;
  int32_t vocab_;
  int32_t past_end_;
};

}  // namespace oxinfer::testing

#endif  // OXINFER_TESTS_SUPPORT_ORACLE_DRAFTER_H_
