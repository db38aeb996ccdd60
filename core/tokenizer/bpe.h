// Byte-pair-encoding model of HuggingFace tokenizer.json ("type": "BPE"),
// reproducing tokenizers' merge order exactly (lowest rank first, leftmost on
// ties, with the same handling of stale queue entries), byte fallback to
// <0xXX> tokens, unknown-token fusing and continuing-subword prefixes.
#ifndef OXINFER_CORE_TOKENIZER_BPE_H_
#define OXINFER_CORE_TOKENIZER_BPE_H_

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/tokenizer/json.h"

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

class BpeModel {
 public:
  // `model` is the "model" object of tokenizer.json; its "vocab" and "merges"
  // members may be JsonValue::Kind::kRaw spans (they are streamed).
  static absl::StatusOr<std::unique_ptr<BpeModel>> FromJson(const JsonValue& model);

  // Appends the ids of one pre-token. With `byte_level`, `word` holds raw bytes
  // and each byte b stands for the character ByteToUnicode(b) (the ByteLevel
  // pre-tokenizer's output) without that string being built.
  void Tokenize(absl::string_view word, bool byte_level, std::vector<int32_t>* ids) const;

  std::optional<int32_t> TokenToId(absl::string_view token) const;
  // False for ids outside the vocabulary.
  bool IdToToken(int32_t id, absl::string_view* token) const;
  // One past the largest id.
  int32_t id_limit() const { return static_cast<int32_t>(id_to_token_.size()); }
  size_t vocab_size() const { return vocab_.size(); }
  size_t num_merges() const { return merges_.size(); }

 private:
  struct Symbol {
    int32_t id;
    int32_t prev;
    int32_t next;
    int32_t len;
  };

  BpeModel() = default;
  absl::Status LoadVocab(const JsonValue& vocab);
  absl::Status LoadMerges(const JsonValue& merges);
  void BuildTables();

  // Adds the initial symbols of one character (`chr`: its text as looked up).
  void AddChar(absl::string_view chr, bool is_first, bool is_last, std::vector<Symbol>* symbols,
               std::pair<int32_t, int32_t>* pending_unk) const;
  void MergeAll(std::vector<Symbol>* symbols) const;
  void TokenizeUncached(absl::string_view word, bool byte_level, std::vector<int32_t>* ids) const;

  static uint64_t PairKey(int32_t a, int32_t b) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
  }

  // Token strings live in one arena (reserved up front, never reallocated);
  // the map and the id table hold views into it.
  std::string arena_;
  VocabIndex vocab_;
  std::vector<absl::string_view> id_to_token_;
  std::vector<bool> id_present_;
  MergeTable merges_;

  std::optional<std::string> unk_token_;
  int32_t unk_id_ = -1;
  std::optional<std::string> continuing_subword_prefix_;
  std::optional<std::string> end_of_word_suffix_;
  bool fuse_unk_ = false;
  bool byte_fallback_ = false;
  bool ignore_merges_ = false;
  bool affixes_ = false;  // a non-empty prefix or suffix: take the generic path

  // Fast paths for the initial symbols.
  absl::flat_hash_map<uint32_t, int32_t> char_ids_;  // single-code-point tokens
  std::array<int32_t, 256> byte_level_ids_;          // id of ByteToUnicode(b), or -1
  std::array<int32_t, 256> byte_fallback_ids_;       // id of <0xXX>, or -1

  // Cache of recent words (short ones only).
  static constexpr size_t kMaxCachedWordBytes = 64;
  static constexpr size_t kMaxCacheEntries = 1 << 16;
  mutable std::mutex cache_mu_;
  mutable absl::flat_hash_map<std::string, std::pair<uint32_t, uint32_t>> cache_;
  mutable std::vector<int32_t> cache_ids_;
};

}  // namespace tokenizer
}  // namespace oxinfer

#endif  // OXINFER_CORE_TOKENIZER_BPE_H_
