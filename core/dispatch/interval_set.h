// The byte ranges of a buffer that hold valid data on one backend: a sorted
// list of disjoint, non-touching intervals [begin, end). A buffer is almost
// always valid in one piece (or none), so a small sorted vector is the right
// structure: every query is a binary search over one or two entries.
#ifndef OXINFER_CORE_DISPATCH_INTERVAL_SET_H_
#define OXINFER_CORE_DISPATCH_INTERVAL_SET_H_

#include <cstdint>
#include <vector>

namespace oxinfer {
namespace dispatch {

struct ByteRange {
  uint64_t begin = 0;
  uint64_t end = 0;  // one past the last byte
  uint64_t size() const { return end - begin; }
  bool operator==(const ByteRange& o) const { return begin == o.begin && end == o.end; }
};

class IntervalSet {
 public:
  bool empty() const { return ranges_.empty(); }
  const std::vector<ByteRange>& ranges() const { return ranges_; }
  void Clear() { ranges_.clear(); }

  // Whether every byte of [begin, end) is in the set (true when empty).
  // Inline for the common cases (none or one range): the dispatcher asks per
  // operand of every op.
  bool Covers(uint64_t begin, uint64_t end) const {
    if (begin >= end) return true;
    if (ranges_.size() <= 1) {
      return !ranges_.empty() && ranges_[0].begin <= begin && end <= ranges_[0].end;
    }
    return CoversSlow(begin, end);
  }
  // Whether any byte of [begin, end) is in the set.
  bool Intersects(uint64_t begin, uint64_t end) const;
  void Add(uint64_t begin, uint64_t end) {
    if (!Covers(begin, end)) AddSlow(begin, end);
  }
  void Remove(uint64_t begin, uint64_t end) {
    if (!ranges_.empty()) RemoveSlow(begin, end);
  }

  // Appends to `out`, in order, the parts of [begin, end) that are in the set
  // (Intersect) or not (Gaps).
  void Intersect(uint64_t begin, uint64_t end, std::vector<ByteRange>* out) const;
  void Gaps(uint64_t begin, uint64_t end, std::vector<ByteRange>* out) const;

 private:
  bool CoversSlow(uint64_t begin, uint64_t end) const;
  void AddSlow(uint64_t begin, uint64_t end);
  void RemoveSlow(uint64_t begin, uint64_t end);
  // The first range that ends after `pos` (the first that can hold pos or later bytes).
  std::vector<ByteRange>::const_iterator FirstEndingAfter(uint64_t pos) const;

  std::vector<ByteRange> ranges_;
};

}  // namespace dispatch
}  // namespace oxinfer

#endif  // OXINFER_CORE_DISPATCH_INTERVAL_SET_H_
