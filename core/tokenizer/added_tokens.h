// Added tokens of tokenizer.json ("added_tokens"): strings matched in the
// input before the model sees it, leftmost-longest like tokenizers'
// Aho-Corasick (MatchKind::LeftmostLongest), with their lstrip / rstrip /
// single_word options. Tokens with normalized=false are matched in the raw
// input, the others in the normalized text.
#ifndef OXINFER_CORE_TOKENIZER_ADDED_TOKENS_H_
#define OXINFER_CORE_TOKENIZER_ADDED_TOKENS_H_

#include <bitset>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/tokenizer/json.h"
#include "core/tokenizer/normalizers.h"

namespace oxinfer {
namespace tokenizer {

struct AddedToken {
  std::string content;
  int32_t id;
  bool single_word, lstrip, rstrip, normalized, special;
};

// A byte trie over token contents.
class AddedTokenMatcher {
 public:
  // The first `token_index` registered for a pattern wins.
  void Add(absl::string_view pattern, int32_t token_index);
  bool empty() const { return nodes_.empty(); }
  // Leftmost-longest, non-overlapping matches: (begin, end, token_index).
  void FindAll(absl::string_view text, std::vector<std::tuple<size_t, size_t, int32_t>>* out) const;

 private:
  std::vector<int32_t> nodes_;  // token index at each node, or -1
  absl::flat_hash_map<uint64_t, int32_t> children_;
  std::bitset<256> first_byte_;
};

class AddedVocabulary {
 public:
  // Reads the "added_tokens" array. `normalizer` (may be null) is the
  // tokenizer's: tokens with normalized=true are matched in its output.
  absl::Status Load(const JsonValue& list, const Normalizer* normalizer);

  // Called for each part of a split text, in order: (part, index of the
  // added token it is or -1, byte offset of the part).
  using SplitFn = absl::FunctionRef<void(absl::string_view, int32_t, size_t)>;
  // Whether a match of a token at [begin, end) is passed over (its text then
  // stays in the surrounding piece), as tokenizers does for special tokens
  // with encode_special_tokens.
  using SkipFn = absl::FunctionRef<bool(const AddedToken&, size_t, size_t)>;
  // tokenizers' AddedVocabulary::find_matches over raw input (tokens with
  // normalized=false) or over normalized text (normalized=true).
  void SplitRaw(absl::string_view text, SplitFn fn) const {
    Split(text, raw_matcher_, fn, nullptr);
  }
  void SplitNormalized(absl::string_view text, SplitFn fn) const {
    Split(text, normalized_matcher_, fn, nullptr);
  }
  void SplitRaw(absl::string_view text, SplitFn fn, SkipFn skip) const {
    Split(text, raw_matcher_, fn, &skip);
  }
  void SplitNormalized(absl::string_view text, SplitFn fn, SkipFn skip) const {
    Split(text, normalized_matcher_, fn, &skip);
  }
  // The raw matches (begin, end, token index) of special tokens, leftmost longest.
  void FindRawSpecial(absl::string_view text,
                      std::vector<std::tuple<size_t, size_t, int32_t>>* out) const;

  const AddedToken& token(int32_t index) const { return tokens_[index]; }
  // False if `id` is not an added token.
  bool IdToToken(int32_t id, absl::string_view* content) const;
  std::optional<int32_t> TokenToId(absl::string_view content) const;
  // Whether an added token marked special has this content.
  bool IsSpecialContent(absl::string_view content) const {
    return special_contents_.contains(content);
  }
  // One past the largest added id (0 if none).
  int32_t id_limit() const { return id_limit_; }

 private:
  void Split(absl::string_view text, const AddedTokenMatcher& matcher, SplitFn fn,
             const SkipFn* skip) const;

  std::vector<AddedToken> tokens_;
  absl::flat_hash_map<int32_t, int32_t> index_by_id_;  // id -> index into tokens_
  absl::flat_hash_map<std::string, int32_t> id_by_content_;
  absl::flat_hash_set<std::string> special_contents_;
  AddedTokenMatcher raw_matcher_;         // normalized == false
  AddedTokenMatcher normalized_matcher_;  // normalized == true
  int32_t id_limit_ = 0;
};

}  // namespace tokenizer
}  // namespace oxinfer

#endif  // OXINFER_CORE_TOKENIZER_ADDED_TOKENS_H_
