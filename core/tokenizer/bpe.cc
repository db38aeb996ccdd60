// BpeModel's encoding: initial symbols (characters, byte fallback, unknown
// tokens), tokenizers' merge loop, and the word cache.
#include "core/tokenizer/bpe.h"

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/tokenizer/byte_level.h"
#include "core/tokenizer/utf8.h"

namespace oxinfer {
namespace tokenizer {
namespace {

struct QueueEntry {
  int32_t rank;
  int32_t pos;
  int32_t new_id;
  int32_t left, right;  // the pair when the entry was pushed
};

// Min-heap on (rank, pos), like tokenizers' `Merge` ordering.
struct QueueGreater {
  bool operator()(const QueueEntry& a, const QueueEntry& b) const {
    if (a.rank != b.rank) return a.rank > b.rank;
    return a.pos > b.pos;
  }
};

}  // namespace

std::optional<int32_t> BpeModel::TokenToId(absl::string_view token) const {
  const int32_t id = vocab_.Find(token);
  if (id < 0) return std::nullopt;
  return id;
}

bool BpeModel::IdToToken(int32_t id, absl::string_view* token) const {
  if (id < 0 || static_cast<size_t>(id) >= id_to_token_.size() || !id_present_[id]) {
    return false;
  }
  *token = id_to_token_[id];
  return true;
}

void BpeModel::AddChar(absl::string_view chr, bool is_first, bool is_last,
                       std::vector<Symbol>* symbols,
                       std::pair<int32_t, int32_t>* pending_unk) const {
  auto push = [symbols](int32_t id, int32_t len) {
    const int32_t n = static_cast<int32_t>(symbols->size());
    if (n > 0) symbols->back().next = n;
    symbols->push_back(Symbol{id, n - 1, -1, len});
  };
  const int32_t byte_len = static_cast<int32_t>(chr.size());
  std::string affixed;
  absl::string_view s = chr;
  if (affixes_) {
    if (!is_first && continuing_subword_prefix_) affixed = *continuing_subword_prefix_;
    affixed.append(chr.data(), chr.size());
    if (is_last && end_of_word_suffix_) affixed += *end_of_word_suffix_;
    s = affixed;
  }
  const int32_t found = vocab_.Find(s);
  if (found >= 0) {
    if (pending_unk->first >= 0) {
      push(pending_unk->first, pending_unk->second);
      pending_unk->first = -1;
    }
    push(found, byte_len);
    return;
  }
  if (byte_fallback_) {
    bool all = true;
    for (char c : s) all &= byte_fallback_ids_[static_cast<uint8_t>(c)] >= 0;
    if (all) {
      for (char c : s) push(byte_fallback_ids_[static_cast<uint8_t>(c)], 1);
      return;
    }
  }
  if (unk_token_) {
    if (pending_unk->first >= 0) {
      if (fuse_unk_) {
        pending_unk->second += byte_len;
      } else {
        push(pending_unk->first, pending_unk->second);
        *pending_unk = {unk_id_, byte_len};
      }
    } else {
      *pending_unk = {unk_id_, byte_len};
    }
  }
}

void BpeModel::MergeAll(std::vector<Symbol>* symbols_ptr) const {
  std::vector<Symbol>& symbols = *symbols_ptr;
  const int32_t n = static_cast<int32_t>(symbols.size());
  if (n < 2) return;
  thread_local std::vector<QueueEntry> heap;
  heap.clear();
  const QueueGreater greater;
  auto push = [&](int32_t pos, int32_t left, int32_t right) {
    const MergeTable::Value* m = merges_.Find(PairKey(left, right));
    if (m == nullptr) return;
    heap.push_back(QueueEntry{m->rank, pos, m->new_id, left, right});
    std::push_heap(heap.begin(), heap.end(), greater);
  };
  // Prefetch every initial pair's slot first so the cache misses overlap.
  for (int32_t i = 0; i + 1 < n; ++i) merges_.Prefetch(PairKey(symbols[i].id, symbols[i + 1].id));
  for (int32_t i = 0; i + 1 < n; ++i) {
    const MergeTable::Value* m = merges_.Find(PairKey(symbols[i].id, symbols[i + 1].id));
    if (m != nullptr) {
      heap.push_back(QueueEntry{m->rank, i, m->new_id, symbols[i].id, symbols[i + 1].id});
    }
  }
  std::make_heap(heap.begin(), heap.end(), greater);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), greater);
    const QueueEntry top = heap.back();
    heap.pop_back();
    Symbol& cur = symbols[top.pos];
    if (cur.len == 0) continue;
    if (cur.next == -1) continue;
    const int32_t next_pos = cur.next;
    const Symbol right = symbols[next_pos];
    // Skip entries made stale by earlier merges. tokenizers compares the
    // merge result of the current pair with the entry's; an unchanged pair
    // needs no lookup.
    if (cur.id != top.left || right.id != top.right) {
      const MergeTable::Value* target = merges_.Find(PairKey(cur.id, right.id));
      if (target == nullptr || target->new_id != top.new_id) continue;
    }
    cur.id = top.new_id;
    cur.len += right.len;
    cur.next = right.next;
    symbols[next_pos].len = 0;
    if (right.next > -1 && right.next < n) symbols[right.next].prev = top.pos;
    if (cur.prev >= 0) push(cur.prev, symbols[cur.prev].id, cur.id);
    if (cur.next >= 0 && cur.next < n) push(top.pos, cur.id, symbols[cur.next].id);
  }
}

void BpeModel::TokenizeUncached(absl::string_view word, bool byte_level,
                                std::vector<int32_t>* ids) const {
  thread_local std::vector<Symbol> symbols;
  symbols.clear();
  std::pair<int32_t, int32_t> pending_unk{-1, 0};
  auto push = [](int32_t id, int32_t len) {
    const int32_t n = static_cast<int32_t>(symbols.size());
    if (n > 0) symbols.back().next = n;
    symbols.push_back(Symbol{id, n - 1, -1, len});
  };
  const size_t n = word.size();
  if (byte_level) {
    for (size_t i = 0; i < n; ++i) {
      const uint8_t b = static_cast<uint8_t>(word[i]);
      const int32_t id = byte_level_ids_[b];
      if (id >= 0 && !affixes_ && pending_unk.first < 0) {
        push(id, 1);
      } else {
        AddChar(ByteToUnicodeUtf8(b), i == 0, i + 1 == n, &symbols, &pending_unk);
      }
    }
  } else {
    size_t pos = 0;
    while (pos < n) {
      const size_t start = pos;
      size_t len = ValidSequenceLength(word, pos);
      if (len == 0) len = 1;  // cannot happen: input is valid UTF-8
      pos += len;
      if (!affixes_ && pending_unk.first < 0) {
        size_t p = start;
        const uint32_t cp = len == 1 ? static_cast<uint8_t>(word[start]) : DecodeValid(word, &p);
        auto it = char_ids_.find(cp);
        if (it != char_ids_.end()) {
          push(it->second, static_cast<int32_t>(len));
          continue;
        }
      }
      AddChar(word.substr(start, len), start == 0, pos >= n, &symbols, &pending_unk);
    }
  }
  if (pending_unk.first >= 0) push(pending_unk.first, pending_unk.second);
  MergeAll(&symbols);
  for (const Symbol& s : symbols) {
    if (s.len != 0) ids->push_back(s.id);
  }
}

void BpeModel::Tokenize(absl::string_view word, bool byte_level, std::vector<int32_t>* ids) const {
  if (word.empty()) return;
  if (ignore_merges_) {
    std::string mapped;
    absl::string_view key = word;
    if (byte_level) {
      for (char c : word) mapped += ByteToUnicodeUtf8(static_cast<uint8_t>(c));
      key = mapped;
    }
    const int32_t id = vocab_.Find(key);
    if (id >= 0) {
      ids->push_back(id);
      return;
    }
  }
  const bool cacheable = word.size() <= kMaxCachedWordBytes;
  if (cacheable) {
    std::lock_guard<std::mutex> lock(cache_mu_);
    auto it = cache_.find(word);
    if (it != cache_.end()) {
      ids->insert(ids->end(), cache_ids_.begin() + it->second.first,
                  cache_ids_.begin() + it->second.first + it->second.second);
      return;
    }
  }
  const size_t before = ids->size();
  TokenizeUncached(word, byte_level, ids);
  if (cacheable) {
    std::lock_guard<std::mutex> lock(cache_mu_);
    if (cache_.size() >= kMaxCacheEntries) {
      cache_.clear();
      cache_ids_.clear();
    }
    const uint32_t offset = static_cast<uint32_t>(cache_ids_.size());
    cache_ids_.insert(cache_ids_.end(), ids->begin() + before, ids->end());
    cache_.emplace(std::string(word),
                   std::make_pair(offset, static_cast<uint32_t>(ids->size() - before)));
  }
}

}  // namespace tokenizer
}  // namespace oxinfer
