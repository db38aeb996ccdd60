#include "core/tokenizer/pre_tokenizers.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/tokenizer/byte_level.h"
#include "core/tokenizer/config_json.h"
#include "core/tokenizer/metaspace.h"
#include "core/tokenizer/pattern.h"
#include "core/tokenizer/split_ranges.h"
#include "core/tokenizer/split_regex.h"

namespace oxinfer {
namespace tokenizer {
namespace {

void SplitByMatches(const Piece& piece, const Ranges& matches, SplitBehavior behavior, bool invert,
                    std::vector<Piece>* out) {
  Ranges kept;
  SplitRanges(piece.text.size(), matches, behavior, invert, &kept);
  for (const auto& r : kept) {
    out->push_back(
        Piece{piece.text.substr(r.first, r.second - r.first), piece.at_start && r.first == 0});
  }
}

class SplitPreTokenizer : public PreTokenizer {
 public:
  SplitPreTokenizer(Pattern p, SplitBehavior b, bool invert)
      : pattern_(std::move(p)), behavior_(b), invert_(invert) {}
  void PreTokenize(std::vector<Piece>* pieces) const override {
    std::vector<Piece> out;
    out.reserve(pieces->size() * 4);
    Ranges matches;
    for (const Piece& piece : *pieces) {
      matches.clear();
      pattern_.FindAll(piece.text, &matches);
      if (matches.empty() && !invert_) {
        out.push_back(piece);  // fast path: nothing to split
        continue;
      }
      SplitByMatches(piece, matches, behavior_, invert_, &out);
    }
    pieces->swap(out);
  }
  bool SupportsViews() const override { return true; }
  void PreTokenizeViews(std::vector<absl::string_view>* views) const override {
    SplitViews([this](absl::string_view v, Ranges* matches) { pattern_.FindAll(v, matches); },
               behavior_, invert_, views);
  }

 private:
  Pattern pattern_;
  SplitBehavior behavior_;
  bool invert_;
};

constexpr absl::string_view kGpt2Pattern =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

class ByteLevelPreTokenizer : public PreTokenizer {
 public:
  ByteLevelPreTokenizer(bool add_prefix_space, std::unique_ptr<SplitRegex> regex)
      : add_prefix_space_(add_prefix_space), regex_(std::move(regex)) {}
  // When the ByteLevel step is the last pre-tokenizer the BPE model reads raw
  // bytes directly (no byte -> character string is built).
  void set_map_bytes(bool map) { map_bytes_ = map; }
  bool SupportsViews() const override { return !map_bytes_ && !add_prefix_space_; }
  void PreTokenizeViews(std::vector<absl::string_view>* views) const override {
    if (regex_ == nullptr) return;
    SplitViews([this](absl::string_view v, Ranges* matches) { regex_->FindAll(v, matches); },
               SplitBehavior::kIsolated, /*invert=*/false, views);
  }

  void PreTokenize(std::vector<Piece>* pieces) const override {
    std::vector<Piece> out;
    Ranges matches;
    for (Piece& piece : *pieces) {
      if (add_prefix_space_ && (piece.text.empty() || piece.text[0] != ' ')) {
        piece.text.insert(0, " ");
      }
      if (regex_ != nullptr) {
        matches.clear();
        regex_->FindAll(piece.text, &matches);
        SplitByMatches(piece, matches, SplitBehavior::kIsolated, false, &out);
      } else {
        out.push_back(std::move(piece));
      }
    }
    if (map_bytes_) {
      for (Piece& p : out) {
        std::string mapped;
        for (char c : p.text) mapped += ByteToUnicodeUtf8(static_cast<uint8_t>(c));
        p.text = std::move(mapped);
      }
    }
    pieces->swap(out);
  }

 private:
  bool add_prefix_space_;
  std::unique_ptr<SplitRegex> regex_;
  bool map_bytes_ = true;
};

class MetaspacePreTokenizer : public PreTokenizer {
 public:
  MetaspacePreTokenizer(MetaspaceConfig config, bool split)
      : replacement_(std::move(config.replacement)), scheme_(config.scheme), split_(split) {}
  void PreTokenize(std::vector<Piece>* pieces) const override {
    std::vector<Piece> out;
    Ranges matches;
    for (Piece& piece : *pieces) {
      std::string t;
      t.reserve(piece.text.size() + 8);
      for (char c : piece.text) {
        if (c == ' ') {
          t += replacement_;
        } else {
          t.push_back(c);
        }
      }
      const bool starts = absl::string_view(t).substr(0, replacement_.size()) == replacement_;
      if (!starts && (scheme_ == PrependScheme::kAlways ||
                      (scheme_ == PrependScheme::kFirst && piece.at_start))) {
        t.insert(0, replacement_);
      }
      Piece p{std::move(t), piece.at_start};
      if (!split_) {
        out.push_back(std::move(p));
        continue;
      }
      matches.clear();
      size_t pos = 0;
      while ((pos = p.text.find(replacement_, pos)) != std::string::npos) {
        matches.emplace_back(pos, pos + replacement_.size());
        pos += replacement_.size();
      }
      SplitByMatches(p, matches, SplitBehavior::kMergedWithNext, false, &out);
    }
    pieces->swap(out);
  }

 private:
  std::string replacement_;
  PrependScheme scheme_;
  bool split_;
};

// Flattens Sequence pre-tokenizers into `steps`.
absl::Status MakePreTokenizers(const JsonValue& v,
                               std::vector<std::unique_ptr<PreTokenizer>>* steps,
                               std::vector<ByteLevelPreTokenizer*>* byte_levels) {
  const std::string type = TypeOf(v);
  if (type == "Sequence") {
    const JsonValue* list = v.Find("pretokenizers");
    if (list == nullptr || !list->is_array()) {
      return absl::InvalidArgumentError("Sequence pre-tokenizer: missing \"pretokenizers\"");
    }
    for (const JsonValue& child : list->array) {
      absl::Status s = MakePreTokenizers(child, steps, byte_levels);
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }
  if (type == "Split") {
    auto p = PatternMember(v, "Split pre-tokenizer");
    if (!p.ok()) return p.status();
    auto behavior_name = GetString(v, "behavior", "Split pre-tokenizer");
    if (!behavior_name.ok()) return behavior_name.status();
    auto behavior = ParseBehavior(*behavior_name);
    if (!behavior.ok()) return behavior.status();
    steps->push_back(
        std::make_unique<SplitPreTokenizer>(*std::move(p), *behavior, GetBool(v, "invert", false)));
    return absl::OkStatus();
  }
  if (type == "ByteLevel") {
    std::unique_ptr<SplitRegex> regex;
    if (GetBool(v, "use_regex", true)) {
      auto r = SplitRegex::Create(kGpt2Pattern);
      if (!r.ok()) return r.status();
      regex = *std::move(r);
    }
    auto bl = std::make_unique<ByteLevelPreTokenizer>(GetBool(v, "add_prefix_space", true),
                                                      std::move(regex));
    byte_levels->push_back(bl.get());
    steps->push_back(std::move(bl));
    return absl::OkStatus();
  }
  if (type == "Metaspace") {
    std::string unknown_scheme;
    MetaspaceConfig config = ReadMetaspaceConfig(v, &unknown_scheme);
    if (!unknown_scheme.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Metaspace: unsupported prepend_scheme \"", unknown_scheme, "\""));
    }
    steps->push_back(std::make_unique<MetaspacePreTokenizer>(config, GetBool(v, "split", true)));
    return absl::OkStatus();
  }
  return UnsupportedType("pre-tokenizer", type);
}

}  // namespace

absl::StatusOr<PreTokenizerChain> MakePreTokenizerChain(const JsonValue& v) {
  PreTokenizerChain chain;
  std::vector<ByteLevelPreTokenizer*> byte_levels;
  absl::Status s = MakePreTokenizers(v, &chain.steps, &byte_levels);
  if (!s.ok()) return s;
  if (!byte_levels.empty() && byte_levels.back() == chain.steps.back().get()) {
    byte_levels.back()->set_map_bytes(false);
    chain.byte_level_raw = true;
  }
  chain.views_ok = true;
  for (const auto& step : chain.steps) chain.views_ok &= step->SupportsViews();
  return chain;
}

}  // namespace tokenizer
}  // namespace oxinfer
