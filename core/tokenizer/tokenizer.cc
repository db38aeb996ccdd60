#include "core/tokenizer/tokenizer.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "core/tokenizer/tokenizer_impl.h"
#include "core/tokenizer/utf8.h"

namespace oxinfer {
namespace tokenizer {

bool Tokenizer::Impl::IdToToken(int32_t id, absl::string_view* token) const {
  if (added.IdToToken(id, token)) return true;
  return model->IdToToken(id, token);
}

namespace {

// Whether [begin, end) overlaps one of the sorted ranges.
bool Overlaps(const std::vector<Tokenizer::Range>& ranges, size_t begin, size_t end) {
  auto it = std::upper_bound(ranges.begin(), ranges.end(), begin,
                             [](size_t b, const Tokenizer::Range& r) { return b < r.end; });
  return it != ranges.end() && it->begin < end;
}

}  // namespace

void Tokenizer::Impl::EncodeSequence(absl::string_view text, std::vector<int32_t>* ids,
                                     const EncodeOptions* options) const {
  const bool split_all = options != nullptr && options->split_special_tokens;
  const std::vector<Range>* plain =
      options != nullptr && !options->plain.empty() ? &options->plain : nullptr;
  if (!split_all && plain == nullptr) options = nullptr;
  auto skip_raw = [&](const AddedToken& t, size_t begin, size_t end) {
    return t.special && (split_all || Overlaps(*plain, begin, end));
  };
  bool piece_is_plain = false;  // the raw piece being normalized overlaps a range
  auto skip_normalized = [&](const AddedToken& t, size_t, size_t) {
    return t.special && (split_all || piece_is_plain);
  };
  auto on_raw = [&](absl::string_view piece, int32_t added_index, size_t begin) {
    if (added_index >= 0) {
      ids->push_back(added.token(added_index).id);
      return;
    }
    if (piece.empty()) return;
    std::string normalized(piece);
    if (normalizer != nullptr) normalizer->Normalize(&normalized);
    if (normalized.empty()) return;
    const bool at_start = begin == 0;
    auto on_normalized = [&](absl::string_view sub, int32_t added_index2, size_t begin2) {
      if (added_index2 >= 0) {
        ids->push_back(added.token(added_index2).id);
        return;
      }
      EncodeNormalizedPiece(sub, at_start && begin2 == 0, ids);
    };
    if (options == nullptr) {
      added.SplitNormalized(normalized, on_normalized);
    } else {
      piece_is_plain = plain != nullptr && Overlaps(*plain, begin, begin + piece.size());
      added.SplitNormalized(normalized, on_normalized, skip_normalized);
    }
  };
  if (options == nullptr) {
    added.SplitRaw(text, on_raw);
  } else {
    added.SplitRaw(text, on_raw, skip_raw);
  }
}

void Tokenizer::Impl::EncodeNormalizedPiece(absl::string_view text, bool at_start,
                                            std::vector<int32_t>* ids) const {
  if (text.empty()) return;
  const bool byte_level_raw = pre_tokenizer.byte_level_raw;
  if (pre_tokenizer.steps.empty()) {
    model->Tokenize(text, byte_level_raw, ids);
    return;
  }
  if (pre_tokenizer.views_ok) {
    thread_local std::vector<absl::string_view> views;
    views.clear();
    views.push_back(text);
    for (const auto& p : pre_tokenizer.steps) p->PreTokenizeViews(&views);
    for (absl::string_view v : views) model->Tokenize(v, byte_level_raw, ids);
    return;
  }
  std::vector<Piece> pieces;
  pieces.push_back(Piece{std::string(text), at_start});
  for (const auto& p : pre_tokenizer.steps) p->PreTokenize(&pieces);
  for (const Piece& p : pieces) model->Tokenize(p.text, byte_level_raw, ids);
}

Tokenizer::Tokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Tokenizer::~Tokenizer() = default;

std::vector<int32_t> Tokenizer::Encode(absl::string_view text, bool add_special_tokens) const {
  EncodeOptions options;
  options.add_special_tokens = add_special_tokens;
  return Encode(text, options);
}

std::vector<Tokenizer::Range> Tokenizer::SpecialTokenSpans(absl::string_view text) const {
  std::vector<std::tuple<size_t, size_t, int32_t>> matches;
  impl_->added.FindRawSpecial(text, &matches);
  std::vector<Range> spans;
  spans.reserve(matches.size());
  for (const auto& m : matches) spans.push_back({std::get<0>(m), std::get<1>(m)});
  return spans;
}

std::vector<int32_t> Tokenizer::Encode(absl::string_view text, const EncodeOptions& opts) const {
  const Impl& im = *impl_;
  const EncodeOptions* options = &opts;
  EncodeOptions repaired;
  std::string cleaned;
  if (!IsValidUtf8(text)) {
    cleaned = ToValidUtf8Lossy(text);
    text = cleaned;
    if (!opts.plain.empty()) {  // the ranges no longer point at the same bytes
      repaired = opts;
      repaired.plain.clear();
      repaired.split_special_tokens = true;
      options = &repaired;
    }
  }
  std::vector<int32_t> ids;
  ids.reserve(text.size() / 3 + 4);
  if (!options->add_special_tokens || im.post_template.empty()) {
    im.EncodeSequence(text, &ids, options);
    return ids;
  }
  for (const TemplateItem& item : im.post_template) {
    if (item.is_sequence) {
      im.EncodeSequence(text, &ids, options);
    } else {
      ids.insert(ids.end(), item.special_ids.begin(), item.special_ids.end());
    }
  }
  return ids;
}

std::string Tokenizer::Decode(absl::Span<const int32_t> ids, bool skip_special_tokens) const {
  const Impl& im = *impl_;
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (int32_t id : ids) {
    absl::string_view t;
    if (!im.IdToToken(id, &t)) continue;
    if (skip_special_tokens && im.added.IsSpecialContent(t)) continue;
    tokens.emplace_back(t);
  }
  if (im.decoder == nullptr) return absl::StrJoin(tokens, " ");
  im.decoder->DecodeChain(&tokens);
  return absl::StrJoin(tokens, "");
}

std::optional<int32_t> Tokenizer::TokenToId(absl::string_view token) const {
  if (std::optional<int32_t> id = impl_->added.TokenToId(token)) return id;
  return impl_->model->TokenToId(token);
}

std::optional<std::string> Tokenizer::IdToToken(int32_t id) const {
  absl::string_view t;
  if (!impl_->IdToToken(id, &t)) return std::nullopt;
  return std::string(t);
}

bool Tokenizer::IsSpecial(int32_t id) const {
  absl::string_view t;
  return impl_->IdToToken(id, &t) && impl_->added.IsSpecialContent(t);
}

int32_t Tokenizer::id_limit() const { return impl_->id_limit; }

}  // namespace tokenizer
}  // namespace oxinfer
