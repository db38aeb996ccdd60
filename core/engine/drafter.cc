#include "core/engine/drafter.h"

#include <algorithm>

namespace oxinfer::engine {

absl::StatusOr<std::vector<int32_t>> SelfDrafter::Draft(int32_t seq, absl::Span<const int32_t>,
                                                        int32_t next, int32_t n) {
  std::vector<int32_t> tokens(static_cast<size_t>(n));
  if (absl::Status s = model_->Draft(seq, next, n, tokens.data()); !s.ok()) return s;
  return tokens;
}

int32_t NextDraftLength(const SpeculativeOptions& options, int32_t current, int32_t drafted,
                        int32_t accepted) {
  const int32_t lo = std::min(options.min_draft, options.max_draft);
  if (drafted > 0 && accepted == drafted) current += 1;
  if (2 * accepted < drafted) current -= 1;
  return std::clamp(current, lo, options.max_draft);
}

}  // namespace oxinfer::engine
