#include "core/dispatch/interval_set.h"

#include <algorithm>

namespace oxinfer {
namespace dispatch {

std::vector<ByteRange>::const_iterator IntervalSet::FirstEndingAfter(uint64_t pos) const {
  return std::upper_bound(ranges_.begin(), ranges_.end(), pos,
                          [](uint64_t p, const ByteRange& r) { return p < r.end; });
}

bool IntervalSet::CoversSlow(uint64_t begin, uint64_t end) const {
  auto it = FirstEndingAfter(begin);
  return it != ranges_.end() && it->begin <= begin && it->end >= end;
}

bool IntervalSet::Intersects(uint64_t begin, uint64_t end) const {
  if (begin >= end) return false;
  auto it = FirstEndingAfter(begin);
  return it != ranges_.end() && it->begin < end;
}

void IntervalSet::AddSlow(uint64_t begin, uint64_t end) {
  // Ranges that overlap or touch [begin, end) merge with it.
  auto lo = std::lower_bound(ranges_.begin(), ranges_.end(), begin,
                             [](const ByteRange& r, uint64_t p) { return r.end < p; });
  auto hi = std::upper_bound(lo, ranges_.end(), end,
                             [](uint64_t p, const ByteRange& r) { return p < r.begin; });
  ByteRange merged{begin, end};
  if (lo != hi) {
    merged.begin = std::min(begin, lo->begin);
    merged.end = std::max(end, (hi - 1)->end);
  }
  lo = ranges_.erase(lo, hi);
  ranges_.insert(lo, merged);
}

void IntervalSet::RemoveSlow(uint64_t begin, uint64_t end) {
  if (begin >= end || !Intersects(begin, end)) return;
  auto lo = ranges_.begin() + (FirstEndingAfter(begin) - ranges_.cbegin());
  auto hi = std::lower_bound(lo, ranges_.end(), end,
                             [](const ByteRange& r, uint64_t p) { return r.begin < p; });
  ByteRange left{lo->begin, begin};
  ByteRange right{end, (hi - 1)->end};
  lo = ranges_.erase(lo, hi);
  if (right.begin < right.end) lo = ranges_.insert(lo, right);
  if (left.begin < left.end) ranges_.insert(lo, left);
}

void IntervalSet::Intersect(uint64_t begin, uint64_t end, std::vector<ByteRange>* out) const {
  for (auto it = FirstEndingAfter(begin); it != ranges_.end() && it->begin < end; ++it) {
    out->push_back({std::max(begin, it->begin), std::min(end, it->end)});
  }
}

void IntervalSet::Gaps(uint64_t begin, uint64_t end, std::vector<ByteRange>* out) const {
  uint64_t cursor = begin;
  for (auto it = FirstEndingAfter(begin); it != ranges_.end() && it->begin < end; ++it) {
    if (it->begin > cursor) out->push_back({cursor, it->begin});
    cursor = std::max(cursor, it->end);
  }
  if (cursor < end) out->push_back({cursor, end});
}

}  // namespace dispatch
}  // namespace oxinfer
