#include "core/tokenizer/split_ranges.h"

#include <algorithm>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace oxinfer {
namespace tokenizer {

absl::StatusOr<SplitBehavior> ParseBehavior(absl::string_view s) {
  if (s == "Removed") return SplitBehavior::kRemoved;
  if (s == "Isolated") return SplitBehavior::kIsolated;
  if (s == "MergedWithPrevious") return SplitBehavior::kMergedWithPrevious;
  if (s == "MergedWithNext") return SplitBehavior::kMergedWithNext;
  if (s == "Contiguous") return SplitBehavior::kContiguous;
  return absl::InvalidArgumentError(absl::StrCat("unsupported split behavior \"", s, "\""));
}

void SplitRanges(size_t size, const Ranges& matches, SplitBehavior behavior, bool invert,
                 Ranges* out) {
  if (size == 0) return;
  if (behavior == SplitBehavior::kIsolated) {  // fast path: every segment kept
    size_t prev = 0;
    for (const auto& m : matches) {
      if (prev != m.first) out->emplace_back(prev, m.first);
      if (m.second != m.first) out->emplace_back(m.first, m.second);
      prev = m.second;
    }
    if (prev != size) out->emplace_back(prev, size);
    return;
  }
  struct Seg {
    size_t begin, end;
    bool is_match;
  };
  std::vector<Seg> segs;
  size_t prev = 0;
  for (const auto& m : matches) {
    if (prev != m.first) segs.push_back({prev, m.first, invert});
    segs.push_back({m.first, m.second, !invert});
    prev = m.second;
  }
  if (prev != size) segs.push_back({prev, size, invert});

  struct Out {
    size_t begin, end;
    bool remove;
  };
  std::vector<Out> splits;
  switch (behavior) {
    case SplitBehavior::kIsolated:
      for (const Seg& s : segs) splits.push_back({s.begin, s.end, false});
      break;
    case SplitBehavior::kRemoved:
      for (const Seg& s : segs) splits.push_back({s.begin, s.end, s.is_match});
      break;
    case SplitBehavior::kContiguous: {
      bool previous_match = false;
      for (const Seg& s : segs) {
        if (s.is_match == previous_match && !splits.empty()) {
          splits.back().end = s.end;
        } else {
          splits.push_back({s.begin, s.end, false});
        }
        previous_match = s.is_match;
      }
      break;
    }
    case SplitBehavior::kMergedWithPrevious: {
      bool previous_match = false;
      for (const Seg& s : segs) {
        if (s.is_match && !previous_match && !splits.empty()) {
          splits.back().end = s.end;
        } else {
          splits.push_back({s.begin, s.end, false});
        }
        previous_match = s.is_match;
      }
      break;
    }
    case SplitBehavior::kMergedWithNext: {
      bool previous_match = false;
      for (auto it = segs.rbegin(); it != segs.rend(); ++it) {
        if (it->is_match && !previous_match && !splits.empty()) {
          splits.back().begin = it->begin;
        } else {
          splits.push_back({it->begin, it->end, false});
        }
        previous_match = it->is_match;
      }
      std::reverse(splits.begin(), splits.end());
      break;
    }
  }
  for (const Out& o : splits) {
    if (o.remove || o.end == o.begin) continue;
    out->emplace_back(o.begin, o.end);
  }
}

void SplitViews(absl::FunctionRef<void(absl::string_view, Ranges*)> find_all,
                SplitBehavior behavior, bool invert, std::vector<absl::string_view>* views) {
  thread_local std::vector<absl::string_view> out;
  thread_local Ranges matches;
  thread_local Ranges kept;
  out.clear();
  for (absl::string_view v : *views) {
    matches.clear();
    kept.clear();
    find_all(v, &matches);
    SplitRanges(v.size(), matches, behavior, invert, &kept);
    for (const auto& r : kept) out.push_back(v.substr(r.first, r.second - r.first));
  }
  views->swap(out);
}

}  // namespace tokenizer
}  // namespace oxinfer
