// Byte-pair-encoding model of HuggingFace tokenizer.json ("type": "BPE"),
// reproducing tokenizers' merge order exactly (lowest rank first, leftmost on
// ties, with the same handling of stale queue entries), byte fallback to
// <0xXX> tokens, unknown-token fusing and continuing-subword prefixes.
// Loading is in bpe_loader.cc, encoding in bpe.cc.
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
#include "core/tokenizer/bpe_tables.h"
#include "core/tokenizer/json.h"

namespace oxinfer {
namespace tokenizer {

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
