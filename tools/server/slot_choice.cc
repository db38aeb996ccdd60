#include "tools/server/slot_choice.h"

#include <algorithm>

namespace oxinfer::server {

int64_t CommonPrefix(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
  const size_t n = std::min(a.size(), b.size());
  return std::mismatch(a.begin(), a.begin() + n, b.begin()).first - a.begin();
}

int64_t Reusable(const SlotHistory& slot, const std::vector<int32_t>& prompt, bool can_rewind) {
  const int64_t common = CommonPrefix(slot.tokens, prompt);
  if (can_rewind) return common;
  return common + 1 >= static_cast<int64_t>(slot.tokens.size()) ? common : 0;
}

int ChooseSlot(const std::vector<const SlotHistory*>& candidates,
               const std::vector<int32_t>& prompt, bool can_rewind) {
  int best = 0, oldest = 0;
  int64_t best_common = -1;
  for (int i = 0; i < static_cast<int>(candidates.size()); ++i) {
    const int64_t common = Reusable(*candidates[i], prompt, can_rewind);
    // Ties go to the more recently used slot: the older one is the better
    // one to overwrite later.
    if (common > best_common ||
        (common == best_common && candidates[i]->last_used > candidates[best]->last_used)) {
      best = i;
      best_common = common;
    }
    if (candidates[i]->last_used < candidates[oldest]->last_used) oldest = i;
  }
  return 2 * best_common >= static_cast<int64_t>(prompt.size()) && best_common > 0 ? best : oldest;
}

}  // namespace oxinfer::server
