#include "core/tokenizer/bpe_tables.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/hash/hash.h"

namespace oxinfer {
namespace tokenizer {
namespace {

// A power of two at least twice `n` (load factor <= 1/2), and at least 16.
size_t CapacityFor(size_t n) {
  size_t cap = 16;
  while (cap < n * 2) cap <<= 1;
  return cap;
}

}  // namespace

uint64_t VocabIndex::Hash(absl::string_view s) { return absl::Hash<absl::string_view>{}(s); }

void VocabIndex::Reserve(size_t n) {
  const size_t cap = CapacityFor(n);
  if (cap > slots_.size()) Rehash(cap);
}

void VocabIndex::Rehash(size_t capacity) {
  std::vector<Slot> old;
  old.swap(slots_);
  slots_.assign(capacity, Slot{nullptr, 0, 0, -1});
  mask_ = capacity - 1;
  for (const Slot& s : old) {
    if (s.id < 0) continue;
    const uint64_t h = Hash(absl::string_view(s.data, s.len));
    size_t i = h & mask_;
    while (slots_[i].id >= 0) i = (i + 1) & mask_;
    slots_[i] = s;
  }
}

void VocabIndex::InsertOrAssign(absl::string_view token, int32_t id) {
  if ((size_ + 1) * 2 > slots_.size()) Rehash(std::max<size_t>(16, slots_.size() * 2));
  const uint64_t h = Hash(token);
  const uint32_t tag = static_cast<uint32_t>(h >> 32);
  for (size_t i = h & mask_;; i = (i + 1) & mask_) {
    Slot& s = slots_[i];
    if (s.id < 0) {
      s = Slot{token.data(), static_cast<uint32_t>(token.size()), tag, id};
      ++size_;
      return;
    }
    if (s.tag == tag && absl::string_view(s.data, s.len) == token) {
      s.id = id;
      return;
    }
  }
}

int32_t VocabIndex::Find(absl::string_view str, uint64_t h) const {
  if (slots_.empty()) return -1;
  const uint32_t tag = static_cast<uint32_t>(h >> 32);
  for (size_t i = h & mask_;; i = (i + 1) & mask_) {
    const Slot& s = slots_[i];
    if (s.id < 0) return -1;
    if (s.tag == tag && s.len == str.size() && std::memcmp(s.data, str.data(), s.len) == 0) {
      return s.id;
    }
  }
}

void MergeTable::Reserve(size_t n) {
  const size_t cap = CapacityFor(n);
  if (cap > slots_.size()) Rehash(cap);
}

void MergeTable::Rehash(size_t capacity) {
  std::vector<Slot> old;
  old.swap(slots_);
  slots_.assign(capacity, Slot{kEmpty, {0, 0}});
  mask_ = capacity - 1;
  shift_ = 64;
  for (size_t c = capacity; c > 1; c >>= 1) --shift_;
  for (const Slot& s : old) {
    if (s.key == kEmpty) continue;
    size_t i = Index(s.key);
    while (slots_[i].key != kEmpty) i = (i + 1) & mask_;
    slots_[i] = s;
  }
}

void MergeTable::InsertOrAssign(uint64_t key, Value v) {
  if ((size_ + 1) * 2 > slots_.size()) Rehash(std::max<size_t>(16, slots_.size() * 2));
  for (size_t i = Index(key);; i = (i + 1) & mask_) {
    Slot& s = slots_[i];
    if (s.key == key) {
      s.value = v;
      return;
    }
    if (s.key == kEmpty) {
      s = Slot{key, v};
      ++size_;
      return;
    }
  }
}

}  // namespace tokenizer
}  // namespace oxinfer
