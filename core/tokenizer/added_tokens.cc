#include "core/tokenizer/added_tokens.h"

#include <unicode/uchar.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/limits.h"
#include "core/tokenizer/config_json.h"
#include "core/tokenizer/utf8.h"

namespace oxinfer {
namespace tokenizer {
namespace {

// Unicode \w as in Rust's regex crate (used for single_word added tokens).
bool IsWordChar(uint32_t cp) {
  if (u_hasBinaryProperty(static_cast<UChar32>(cp), UCHAR_ALPHABETIC)) return true;
  if (u_hasBinaryProperty(static_cast<UChar32>(cp), UCHAR_JOIN_CONTROL)) return true;
  const int32_t mask = U_GET_GC_MASK(static_cast<UChar32>(cp));
  return (mask & (U_GC_M_MASK | U_GC_ND_MASK | U_GC_PC_MASK)) != 0;
}

uint32_t LastChar(absl::string_view s) {
  size_t i = s.size();
  while (i > 0 && (static_cast<uint8_t>(s[i - 1]) & 0xC0) == 0x80) --i;
  if (i > 0) --i;
  size_t p = i;
  return DecodeValid(s, &p);
}

}  // namespace

void AddedTokenMatcher::Add(absl::string_view pattern, int32_t token_index) {
  if (pattern.empty()) return;
  if (nodes_.empty()) nodes_.push_back(-1);
  first_byte_.set(static_cast<uint8_t>(pattern[0]));
  int32_t node = 0;
  for (char c : pattern) {
    const uint64_t key = (static_cast<uint64_t>(node) << 8) | static_cast<uint8_t>(c);
    auto it = children_.find(key);
    if (it == children_.end()) {
      const int32_t child = static_cast<int32_t>(nodes_.size());
      nodes_.push_back(-1);
      children_.emplace(key, child);
      node = child;
    } else {
      node = it->second;
    }
  }
  if (nodes_[node] < 0) nodes_[node] = token_index;  // first registration wins
}

void AddedTokenMatcher::FindAll(absl::string_view text,
                                std::vector<std::tuple<size_t, size_t, int32_t>>* out) const {
  const size_t n = text.size();
  size_t pos = 0;
  while (pos < n) {
    if (!first_byte_.test(static_cast<uint8_t>(text[pos]))) {
      ++pos;
      continue;
    }
    int32_t node = 0;
    int32_t best = -1;
    size_t best_end = 0;
    for (size_t i = pos; i < n; ++i) {
      auto it = children_.find((static_cast<uint64_t>(node) << 8) | static_cast<uint8_t>(text[i]));
      if (it == children_.end()) break;
      node = it->second;
      if (nodes_[node] >= 0) {
        best = nodes_[node];
        best_end = i + 1;
      }
    }
    if (best >= 0) {
      out->emplace_back(pos, best_end, best);
      pos = best_end;
    } else {
      ++pos;
    }
  }
}

absl::Status AddedVocabulary::Load(const JsonValue& list, const Normalizer* normalizer) {
  for (const JsonValue& t : list.array) {
    const JsonValue* id = t.Find("id");
    const JsonValue* content = t.Find("content");
    if (id == nullptr || content == nullptr || !content->is_string()) {
      return absl::InvalidArgumentError("added_tokens: each entry needs id and content");
    }
    if (id->kind != JsonValue::Kind::kNumber ||
        !(id->number >= 0 && id->number < limits::kMaxVocabSize) ||
        id->number != static_cast<double>(static_cast<int32_t>(id->number))) {
      return absl::InvalidArgumentError(absl::StrCat("added_tokens: id of '", content->str,
                                                     "' is not an integer in [0, ",
                                                     limits::kMaxVocabSize, ")"));
    }
    AddedToken tok{content->str,
                   static_cast<int32_t>(id->number),
                   GetBool(t, "single_word", false),
                   GetBool(t, "lstrip", false),
                   GetBool(t, "rstrip", false),
                   GetBool(t, "normalized", true),
                   GetBool(t, "special", false)};
    auto existing = index_by_id_.find(tok.id);
    if (existing != index_by_id_.end()) {
      tokens_[existing->second] = tok;
    } else {
      index_by_id_[tok.id] = static_cast<int32_t>(tokens_.size());
      tokens_.push_back(tok);
    }
    id_by_content_[tok.content] = tok.id;
    if (tok.special) special_contents_.insert(tok.content);
    id_limit_ = std::max(id_limit_, tok.id + 1);
  }
  for (size_t i = 0; i < tokens_.size(); ++i) {
    const AddedToken& tok = tokens_[i];
    if (tok.normalized) {
      std::string pattern = tok.content;
      if (normalizer != nullptr) normalizer->Normalize(&pattern);
      normalized_matcher_.Add(pattern, static_cast<int32_t>(i));
    } else {
      raw_matcher_.Add(tok.content, static_cast<int32_t>(i));
    }
  }
  return absl::OkStatus();
}

bool AddedVocabulary::IdToToken(int32_t id, absl::string_view* content) const {
  auto it = index_by_id_.find(id);
  if (it == index_by_id_.end()) return false;
  *content = tokens_[it->second].content;
  return true;
}

std::optional<int32_t> AddedVocabulary::TokenToId(absl::string_view content) const {
  auto it = id_by_content_.find(content);
  if (it == id_by_content_.end()) return std::nullopt;
  return it->second;
}

void AddedVocabulary::FindRawSpecial(absl::string_view text,
                                     std::vector<std::tuple<size_t, size_t, int32_t>>* out) const {
  out->clear();
  if (raw_matcher_.empty()) return;
  std::vector<std::tuple<size_t, size_t, int32_t>> matches;
  raw_matcher_.FindAll(text, &matches);
  for (const auto& m : matches) {
    if (tokens_[std::get<2>(m)].special) out->push_back(m);
  }
}

void AddedVocabulary::Split(absl::string_view text, const AddedTokenMatcher& matcher, SplitFn fn,
                            const SkipFn* skip) const {
  if (matcher.empty()) {
    fn(text, -1, 0);
    return;
  }
  std::vector<std::tuple<size_t, size_t, int32_t>> matches;
  matcher.FindAll(text, &matches);
  size_t start_offset = 0;
  for (const auto& m : matches) {
    size_t start = std::get<0>(m);
    size_t stop = std::get<1>(m);
    const AddedToken& tok = tokens_[std::get<2>(m)];
    // Before single_word, as tokenizers checks encode_special_tokens.
    if (skip != nullptr && (*skip)(tok, start, stop)) continue;
    if (tok.single_word) {
      const bool start_space = start == 0 || !IsWordChar(LastChar(text.substr(0, start)));
      size_t p = stop;
      const bool stop_space = stop == text.size() || !IsWordChar(DecodeValid(text, &p));
      if (!start_space || !stop_space) continue;
    }
    if (tok.lstrip) {
      size_t newstart = start;
      while (newstart > 0) {
        size_t i = newstart - 1;
        while (i > 0 && (static_cast<uint8_t>(text[i]) & 0xC0) == 0x80) --i;
        size_t p = i;
        if (!IsWhitespace(DecodeValid(text, &p))) break;
        newstart = i;
      }
      start = std::max(newstart, start_offset);
    }
    if (tok.rstrip) {
      while (stop < text.size()) {
        size_t p = stop;
        if (!IsWhitespace(DecodeValid(text, &p))) break;
        stop = p;
      }
    }
    if (start_offset < start) fn(text.substr(start_offset, start - start_offset), -1, start_offset);
    fn(text.substr(start, stop - start), std::get<2>(m), start);
    start_offset = stop;
  }
  if (start_offset != text.size()) {
    fn(text.substr(start_offset), -1, start_offset);
  }
}

}  // namespace tokenizer
}  // namespace oxinfer
