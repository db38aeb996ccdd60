// The hash tables of the BPE model: open addressing, sized for the
// 150k-260k token vocabularies and 150k-515k merges of current checkpoints.
#ifndef OXINFER_CORE_TOKENIZER_BPE_TABLES_H_
#define OXINFER_CORE_TOKENIZER_BPE_TABLES_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/strings/string_view.h"

namespace oxinfer {
namespace tokenizer {

// Open-addressing string -> id index over strings that live elsewhere (the
// model's arena). Slots hold a 32-bit hash tag so most probes never touch the
// string bytes; lookups can be prefetched, which the merge loader batches.
class VocabIndex {
 public:
  static uint64_t Hash(absl::string_view s);
  void Reserve(size_t n);
  // `token` must stay valid (it points into the arena).
  void InsertOrAssign(absl::string_view token, int32_t id);
  int32_t Find(absl::string_view s) const { return Find(s, Hash(s)); }
  int32_t Find(absl::string_view s, uint64_t hash) const;  // -1 if absent
  void Prefetch(uint64_t hash) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[hash & mask_]);
  }
  size_t size() const { return size_; }

 private:
  struct Slot {
    const char* data;
    uint32_t len;
    uint32_t tag;
    int32_t id;  // -1: empty
  };
  void Rehash(size_t capacity);
  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

// Open-addressing (left id, right id) -> (rank, merged id) table: one cache
// line per lookup on the BPE hot path.
class MergeTable {
 public:
  struct Value {
    int32_t rank;
    int32_t new_id;
  };
  void Reserve(size_t n);
  void InsertOrAssign(uint64_t key, Value v);
  const Value* Find(uint64_t key) const {
    if (slots_.empty()) return nullptr;
    for (size_t i = Index(key);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.key == key) return &s.value;
      if (s.key == kEmpty) return nullptr;
    }
  }
  void Prefetch(uint64_t key) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[Index(key)]);
  }
  size_t size() const { return size_; }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t{0};
  struct Slot {
    uint64_t key;
    Value value;
  };
  size_t Index(uint64_t key) const { return (key * 0x9E3779B97F4A7C15ULL) >> shift_; }
  void Rehash(size_t capacity);
  std::vector<Slot> slots_;
  size_t mask_ = 0;
  int shift_ = 64;
  size_t size_ = 0;
};

}  // namespace tokenizer
}  // namespace oxinfer

#endif  // OXINFER_CORE_TOKENIZER_BPE_TABLES_H_
