#include "core/tokenizer/tokenizer.h"

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

void Tokenizer::Impl::EncodeSequence(absl::string_view text, std::vector<int32_t>* ids) const {
  added.SplitRaw(text, [&](absl::string_view piece, int32_t added_index, size_t begin) {
    if (added_index >= 0) {
      ids->push_back(added.token(added_index).id);
      return;
    }
    if (piece.empty()) return;
    std::string normalized(piece);
    if (normalizer != nullptr) normalizer->Normalize(&normalized);
    if (normalized.empty()) return;
    const bool at_start = begin == 0;
    added.SplitNormalized(normalized,
                          [&](absl::string_view sub, int32_t added_index2, size_t begin2) {
                            if (added_index2 >= 0) {
                              ids->push_back(added.token(added_index2).id);
                              return;
                            }
                            EncodeNormalizedPiece(sub, at_start && begin2 == 0, ids);
                          });
  });
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
  const Impl& im = *impl_;
  std::string cleaned;
  if (!IsValidUtf8(text)) {
    cleaned = ToValidUtf8Lossy(text);
    text = cleaned;
  }
  std::vector<int32_t> ids;
  ids.reserve(text.size() / 3 + 4);
  if (!add_special_tokens || im.post_template.empty()) {
    im.EncodeSequence(text, &ids);
    return ids;
  }
  for (const TemplateItem& item : im.post_template) {
    if (item.is_sequence) {
      im.EncodeSequence(text, &ids);
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
