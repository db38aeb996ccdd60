#include "core/tokenizer/tokenizer.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unistd.h>

#include <algorithm>
#include <bitset>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/tokenizer/bpe.h"
#include "core/tokenizer/byte_level.h"
#include "core/tokenizer/json.h"
#include "core/tokenizer/split_regex.h"
#include "core/tokenizer/utf8.h"

namespace oxinfer {
namespace tokenizer {
namespace {

using Ranges = std::vector<std::pair<size_t, size_t>>;

// ---------------------------------------------------------------------------
// JSON helpers
// ---------------------------------------------------------------------------

std::string TypeOf(const JsonValue& v) {
  const JsonValue* t = v.Find("type");
  return (t != nullptr && t->is_string()) ? t->str : std::string();
}

bool GetBool(const JsonValue& v, absl::string_view key, bool dflt) {
  const JsonValue* b = v.Find(key);
  if (b == nullptr || b->kind != JsonValue::Kind::kBool) return dflt;
  return b->boolean;
}

absl::StatusOr<std::string> GetString(const JsonValue& v, absl::string_view key,
                                      absl::string_view context) {
  const JsonValue* s = v.Find(key);
  if (s == nullptr || !s->is_string()) {
    return absl::InvalidArgumentError(
        absl::StrCat(context, ": missing string member \"", key, "\""));
  }
  return s->str;
}

bool IsAscii(absl::string_view s) {
  for (char c : s) {
    if (static_cast<uint8_t>(c) >= 0x80) return false;
  }
  return true;
}

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

// ---------------------------------------------------------------------------
// Patterns: {"String": s} or {"Regex": r}
// ---------------------------------------------------------------------------

class Pattern {
 public:
  static absl::StatusOr<Pattern> FromJson(const JsonValue& v, absl::string_view context) {
    Pattern p;
    if (const JsonValue* s = v.Find("String"); s != nullptr && s->is_string()) {
      p.literal_ = s->str;
      return p;
    }
    if (const JsonValue* r = v.Find("Regex"); r != nullptr && r->is_string()) {
      auto re = SplitRegex::Create(r->str);
      if (!re.ok()) return re.status();
      p.regex_ = std::shared_ptr<SplitRegex>(std::move(*re));
      return p;
    }
    return absl::InvalidArgumentError(absl::StrCat(context, ": pattern must be String or Regex"));
  }

  // Non-overlapping matches, left to right.
  void FindAll(absl::string_view text, Ranges* out) const {
    if (regex_ != nullptr) {
      regex_->FindAll(text, out);
      return;
    }
    if (literal_.empty()) return;
    size_t pos = 0;
    while ((pos = text.find(literal_, pos)) != absl::string_view::npos) {
      out->emplace_back(pos, pos + literal_.size());
      pos += literal_.size();
    }
  }

 private:
  std::string literal_;
  std::shared_ptr<SplitRegex> regex_;
};

std::string ReplaceAll(const Pattern& pattern, absl::string_view text, absl::string_view content) {
  Ranges matches;
  pattern.FindAll(text, &matches);
  if (matches.empty()) return std::string(text);
  std::string out;
  out.reserve(text.size() + matches.size() * content.size());
  size_t prev = 0;
  for (const auto& m : matches) {
    out.append(text.data() + prev, m.first - prev);
    out.append(content.data(), content.size());
    prev = m.second;
  }
  out.append(text.data() + prev, text.size() - prev);
  return out;
}

// ---------------------------------------------------------------------------
// Normalizers
// ---------------------------------------------------------------------------

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  virtual void Normalize(std::string* s) const = 0;
};

class IcuNormalizer : public Normalizer {
 public:
  explicit IcuNormalizer(const icu::Normalizer2* n) : n_(n) {}
  void Normalize(std::string* s) const override {
    if (IsAscii(*s)) return;
    UErrorCode status = U_ZERO_ERROR;
    const icu::StringPiece in(s->data(), static_cast<int32_t>(s->size()));
    if (n_->isNormalizedUTF8(in, status) && U_SUCCESS(status)) return;
    status = U_ZERO_ERROR;
    std::string out;
    icu::StringByteSink<std::string> sink(&out, static_cast<int32_t>(s->size()));
    n_->normalizeUTF8(0, in, sink, nullptr, status);
    if (U_SUCCESS(status)) *s = std::move(out);
  }

 private:
  const icu::Normalizer2* n_;
};

class ReplaceNormalizer : public Normalizer {
 public:
  ReplaceNormalizer(Pattern p, std::string content)
      : pattern_(std::move(p)), content_(std::move(content)) {}
  void Normalize(std::string* s) const override { *s = ReplaceAll(pattern_, *s, content_); }

 private:
  Pattern pattern_;
  std::string content_;
};

class PrependNormalizer : public Normalizer {
 public:
  explicit PrependNormalizer(std::string p) : prepend_(std::move(p)) {}
  void Normalize(std::string* s) const override {
    if (!s->empty()) s->insert(0, prepend_);
  }

 private:
  std::string prepend_;
};

class StripNormalizer : public Normalizer {
 public:
  StripNormalizer(bool left, bool right) : left_(left), right_(right) {}
  void Normalize(std::string* s) const override {
    size_t begin = 0, end = s->size();
    if (left_) {
      while (begin < end) {
        size_t p = begin;
        if (!IsWhitespace(DecodeValid(*s, &p))) break;
        begin = p;
      }
    }
    if (right_) {
      while (end > begin) {
        size_t i = end;
        while (i > begin && (static_cast<uint8_t>((*s)[i - 1]) & 0xC0) == 0x80) --i;
        --i;
        size_t p = i;
        if (!IsWhitespace(DecodeValid(*s, &p))) break;
        end = i;
      }
    }
    *s = s->substr(begin, end - begin);
  }

 private:
  bool left_, right_;
};

class SequenceNormalizer : public Normalizer {
 public:
  explicit SequenceNormalizer(std::vector<std::unique_ptr<Normalizer>> n) : steps_(std::move(n)) {}
  void Normalize(std::string* s) const override {
    for (const auto& n : steps_) n->Normalize(s);
  }

 private:
  std::vector<std::unique_ptr<Normalizer>> steps_;
};

absl::StatusOr<std::unique_ptr<Normalizer>> MakeNormalizer(const JsonValue& v) {
  const std::string type = TypeOf(v);
  auto icu = [&](const icu::Normalizer2* (*get)(
                 UErrorCode&)) -> absl::StatusOr<std::unique_ptr<Normalizer>> {
    UErrorCode status = U_ZERO_ERROR;
    const icu::Normalizer2* n = get(status);
    if (U_FAILURE(status) || n == nullptr) {
      return absl::InternalError(
          absl::StrCat("ICU ", type, " normalizer unavailable: ", u_errorName(status)));
    }
    return std::unique_ptr<Normalizer>(new IcuNormalizer(n));
  };
  if (type == "NFC") return icu(&icu::Normalizer2::getNFCInstance);
  if (type == "NFD") return icu(&icu::Normalizer2::getNFDInstance);
  if (type == "NFKC") return icu(&icu::Normalizer2::getNFKCInstance);
  if (type == "NFKD") return icu(&icu::Normalizer2::getNFKDInstance);
  if (type == "Replace") {
    const JsonValue* pat = v.Find("pattern");
    if (pat == nullptr) return absl::InvalidArgumentError("Replace normalizer: missing pattern");
    auto p = Pattern::FromJson(*pat, "Replace normalizer");
    if (!p.ok()) return p.status();
    auto content = GetString(v, "content", "Replace normalizer");
    if (!content.ok()) return content.status();
    return std::unique_ptr<Normalizer>(new ReplaceNormalizer(*std::move(p), *content));
  }
  if (type == "Prepend") {
    auto prepend = GetString(v, "prepend", "Prepend normalizer");
    if (!prepend.ok()) return prepend.status();
    return std::unique_ptr<Normalizer>(new PrependNormalizer(*prepend));
  }
  if (type == "Strip") {
    return std::unique_ptr<Normalizer>(
        new StripNormalizer(GetBool(v, "strip_left", true), GetBool(v, "strip_right", true)));
  }
  if (type == "Sequence") {
    const JsonValue* list = v.Find("normalizers");
    if (list == nullptr || !list->is_array()) {
      return absl::InvalidArgumentError("Sequence normalizer: missing \"normalizers\" list");
    }
    std::vector<std::unique_ptr<Normalizer>> steps;
    for (const JsonValue& child : list->array) {
      auto n = MakeNormalizer(child);
      if (!n.ok()) return n.status();
      steps.push_back(*std::move(n));
    }
    return std::unique_ptr<Normalizer>(new SequenceNormalizer(std::move(steps)));
  }
  return absl::UnimplementedError(
      absl::StrCat("unsupported normalizer type \"", type, "\" in tokenizer.json"));
}

// ---------------------------------------------------------------------------
// Pre-tokenizers
// ---------------------------------------------------------------------------

struct Piece {
  std::string text;
  bool at_start;  // starts at offset 0 of the original input (Metaspace "first")
};

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  virtual void PreTokenize(std::vector<Piece>* pieces) const = 0;
  // Steps that only cut the text (no rewriting) can also work on views into
  // it, which avoids copying every pre-token.
  virtual bool SupportsViews() const { return false; }
  virtual void PreTokenizeViews(std::vector<absl::string_view>* /*views*/) const {}
};

enum class SplitBehavior { kRemoved, kIsolated, kMergedWithPrevious, kMergedWithNext, kContiguous };

absl::StatusOr<SplitBehavior> ParseBehavior(absl::string_view s) {
  if (s == "Removed") return SplitBehavior::kRemoved;
  if (s == "Isolated") return SplitBehavior::kIsolated;
  if (s == "MergedWithPrevious") return SplitBehavior::kMergedWithPrevious;
  if (s == "MergedWithNext") return SplitBehavior::kMergedWithNext;
  if (s == "Contiguous") return SplitBehavior::kContiguous;
  return absl::InvalidArgumentError(absl::StrCat("unsupported split behavior \"", s, "\""));
}

// tokenizers' NormalizedString::split over (offsets, is_match) segments:
// appends the non-empty kept ranges of a text of `size` bytes to `out`.
void SplitRanges(size_t size, const Ranges& matches, SplitBehavior behavior, bool invert,
                 Ranges* out) {
  if (size == 0) return;
  if (behavior == SplitBehavior::kIsolated) {  // fast path: every segment kept
    size_t prev = 0;
    for (const auto& m : matches) {
      if (prev != m.first) out->emplace_back(prev, m.first);
      if (m.second != m.first) out->emplace_back(m.first, m.second);
      prev = m.second;
    }
    if (prev != size) out->emplace_back(prev, size);
    return;
  }
  struct Seg {
    size_t begin, end;
    bool is_match;
  };
  std::vector<Seg> segs;
  size_t prev = 0;
  for (const auto& m : matches) {
    if (prev != m.first) segs.push_back({prev, m.first, invert});
    segs.push_back({m.first, m.second, !invert});
    prev = m.second;
  }
  if (prev != size) segs.push_back({prev, size, invert});

  struct Out {
    size_t begin, end;
    bool remove;
  };
  std::vector<Out> splits;
  switch (behavior) {
    case SplitBehavior::kIsolated:
      for (const Seg& s : segs) splits.push_back({s.begin, s.end, false});
      break;
    case SplitBehavior::kRemoved:
      for (const Seg& s : segs) splits.push_back({s.begin, s.end, s.is_match});
      break;
    case SplitBehavior::kContiguous: {
      bool previous_match = false;
      for (const Seg& s : segs) {
        if (s.is_match == previous_match && !splits.empty()) {
          splits.back().end = s.end;
        } else {
          splits.push_back({s.begin, s.end, false});
        }
        previous_match = s.is_match;
      }
      break;
    }
    case SplitBehavior::kMergedWithPrevious: {
      bool previous_match = false;
      for (const Seg& s : segs) {
        if (s.is_match && !previous_match && !splits.empty()) {
          splits.back().end = s.end;
        } else {
          splits.push_back({s.begin, s.end, false});
        }
        previous_match = s.is_match;
      }
      break;
    }
    case SplitBehavior::kMergedWithNext: {
      bool previous_match = false;
      for (auto it = segs.rbegin(); it != segs.rend(); ++it) {
        if (it->is_match && !previous_match && !splits.empty()) {
          splits.back().begin = it->begin;
        } else {
          splits.push_back({it->begin, it->end, false});
        }
        previous_match = it->is_match;
      }
      std::reverse(splits.begin(), splits.end());
      break;
    }
  }
  for (const Out& o : splits) {
    if (o.remove || o.end == o.begin) continue;
    out->emplace_back(o.begin, o.end);
  }
}

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
    thread_local std::vector<absl::string_view> out;
    thread_local Ranges matches;
    thread_local Ranges kept;
    out.clear();
    for (absl::string_view v : *views) {
      matches.clear();
      kept.clear();
      pattern_.FindAll(v, &matches);
      SplitRanges(v.size(), matches, behavior_, invert_, &kept);
      for (const auto& r : kept) out.push_back(v.substr(r.first, r.second - r.first));
    }
    views->swap(out);
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
    thread_local std::vector<absl::string_view> out;
    thread_local Ranges matches;
    thread_local Ranges kept;
    out.clear();
    for (absl::string_view v : *views) {
      matches.clear();
      kept.clear();
      regex_->FindAll(v, &matches);
      SplitRanges(v.size(), matches, SplitBehavior::kIsolated, false, &kept);
      for (const auto& r : kept) out.push_back(v.substr(r.first, r.second - r.first));
    }
    views->swap(out);
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

enum class PrependScheme { kAlways, kFirst, kNever };

class MetaspacePreTokenizer : public PreTokenizer {
 public:
  MetaspacePreTokenizer(std::string replacement, PrependScheme scheme, bool split)
      : replacement_(std::move(replacement)), scheme_(scheme), split_(split) {}
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
    const JsonValue* pat = v.Find("pattern");
    if (pat == nullptr) return absl::InvalidArgumentError("Split pre-tokenizer: missing pattern");
    auto p = Pattern::FromJson(*pat, "Split pre-tokenizer");
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
    std::string replacement = "\xE2\x96\x81";
    if (const JsonValue* r = v.Find("replacement"); r != nullptr && r->is_string()) {
      replacement = r->str;
    }
    PrependScheme scheme = PrependScheme::kAlways;
    if (const JsonValue* ps = v.Find("prepend_scheme"); ps != nullptr && ps->is_string()) {
      if (ps->str == "always") {
        scheme = PrependScheme::kAlways;
      } else if (ps->str == "first") {
        scheme = PrependScheme::kFirst;
      } else if (ps->str == "never") {
        scheme = PrependScheme::kNever;
      } else {
        return absl::InvalidArgumentError(
            absl::StrCat("Metaspace: unsupported prepend_scheme \"", ps->str, "\""));
      }
    } else if (!GetBool(v, "add_prefix_space", true)) {
      scheme = PrependScheme::kNever;
    }
    steps->push_back(
        std::make_unique<MetaspacePreTokenizer>(replacement, scheme, GetBool(v, "split", true)));
    return absl::OkStatus();
  }
  return absl::UnimplementedError(
      absl::StrCat("unsupported pre-tokenizer type \"", type, "\" in tokenizer.json"));
}

// ---------------------------------------------------------------------------
// Decoders: operate on the token strings, then everything is concatenated.
// ---------------------------------------------------------------------------

class Decoder {
 public:
  virtual ~Decoder() = default;
  virtual void DecodeChain(std::vector<std::string>* tokens) const = 0;
};

class ByteLevelDecoder : public Decoder {
 public:
  void DecodeChain(std::vector<std::string>* tokens) const override {
    std::string bytes;
    for (const std::string& t : *tokens) {
      const size_t mark = bytes.size();
      bool ok = true;
      size_t pos = 0;
      while (pos < t.size()) {
        if (ValidSequenceLength(t, pos) == 0) {
          ok = false;
          break;
        }
        const int b = UnicodeToByte(DecodeValid(t, &pos));
        if (b < 0) {
          ok = false;
          break;
        }
        bytes.push_back(static_cast<char>(b));
      }
      if (!ok) {
        bytes.resize(mark);
        bytes += t;
      }
    }
    tokens->clear();
    tokens->push_back(IsValidUtf8(bytes) ? std::move(bytes) : ToValidUtf8Lossy(bytes));
  }
};

class ReplaceDecoder : public Decoder {
 public:
  ReplaceDecoder(Pattern p, std::string content)
      : pattern_(std::move(p)), content_(std::move(content)) {}
  void DecodeChain(std::vector<std::string>* tokens) const override {
    for (std::string& t : *tokens) t = ReplaceAll(pattern_, t, content_);
  }

 private:
  Pattern pattern_;
  std::string content_;
};

int ParseByteToken(const std::string& t) {
  if (t.size() != 6 || t[0] != '<' || t[1] != '0' || t[2] != 'x' || t[5] != '>') return -1;
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  const int hi = hex(t[3]), lo = hex(t[4]);
  if (hi < 0 || lo < 0) return -1;
  return hi * 16 + lo;
}

class ByteFallbackDecoder : public Decoder {
 public:
  void DecodeChain(std::vector<std::string>* tokens) const override {
    std::vector<std::string> out;
    out.reserve(tokens->size());
    std::string pending;
    auto flush = [&]() {
      if (pending.empty()) return;
      if (IsValidUtf8(pending)) {
        out.push_back(pending);
      } else {
        for (size_t i = 0; i < pending.size(); ++i) out.push_back("\xEF\xBF\xBD");
      }
      pending.clear();
    };
    for (std::string& t : *tokens) {
      const int b = ParseByteToken(t);
      if (b >= 0) {
        pending.push_back(static_cast<char>(b));
      } else {
        flush();
        out.push_back(std::move(t));
      }
    }
    flush();
    tokens->swap(out);
  }
};

class FuseDecoder : public Decoder {
 public:
  void DecodeChain(std::vector<std::string>* tokens) const override {
    std::string all = absl::StrJoin(*tokens, "");
    tokens->clear();
    tokens->push_back(std::move(all));
  }
};

class StripDecoder : public Decoder {
 public:
  StripDecoder(uint32_t content, size_t start, size_t stop)
      : content_(content), start_(start), stop_(stop) {}
  void DecodeChain(std::vector<std::string>* tokens) const override {
    for (std::string& t : *tokens) {
      std::vector<uint32_t> chars;
      size_t pos = 0;
      while (pos < t.size()) chars.push_back(DecodeValid(t, &pos));
      size_t start_cut = 0;
      for (size_t i = 0; i < start_ && i < chars.size(); ++i) {
        if (chars[i] != content_) break;
        start_cut = i + 1;
      }
      size_t stop_cut = chars.size();
      for (size_t i = 0; i < stop_ && i < chars.size(); ++i) {
        const size_t index = chars.size() - i - 1;
        if (chars[index] != content_) break;
        stop_cut = index;
      }
      std::string out;
      for (size_t i = start_cut; i < stop_cut; ++i) AppendUtf8(chars[i], &out);
      t = std::move(out);
    }
  }

 private:
  uint32_t content_;
  size_t start_, stop_;
};

class MetaspaceDecoder : public Decoder {
 public:
  MetaspaceDecoder(std::string replacement, PrependScheme scheme)
      : replacement_(std::move(replacement)), scheme_(scheme) {}
  void DecodeChain(std::vector<std::string>* tokens) const override {
    for (size_t i = 0; i < tokens->size(); ++i) {
      std::string& t = (*tokens)[i];
      std::string out;
      size_t pos = 0;
      while (pos < t.size()) {
        if (t.compare(pos, replacement_.size(), replacement_) == 0) {
          if (!(i == 0 && scheme_ != PrependScheme::kNever)) out.push_back(' ');
          pos += replacement_.size();
        } else {
          out.push_back(t[pos++]);
        }
      }
      t = std::move(out);
    }
  }

 private:
  std::string replacement_;
  PrependScheme scheme_;
};

class SequenceDecoder : public Decoder {
 public:
  explicit SequenceDecoder(std::vector<std::unique_ptr<Decoder>> d) : steps_(std::move(d)) {}
  void DecodeChain(std::vector<std::string>* tokens) const override {
    for (const auto& d : steps_) d->DecodeChain(tokens);
  }

 private:
  std::vector<std::unique_ptr<Decoder>> steps_;
};

absl::StatusOr<std::unique_ptr<Decoder>> MakeDecoder(const JsonValue& v) {
  const std::string type = TypeOf(v);
  if (type == "ByteLevel") return std::unique_ptr<Decoder>(new ByteLevelDecoder());
  if (type == "ByteFallback") return std::unique_ptr<Decoder>(new ByteFallbackDecoder());
  if (type == "Fuse") return std::unique_ptr<Decoder>(new FuseDecoder());
  if (type == "Replace") {
    const JsonValue* pat = v.Find("pattern");
    if (pat == nullptr) return absl::InvalidArgumentError("Replace decoder: missing pattern");
    auto p = Pattern::FromJson(*pat, "Replace decoder");
    if (!p.ok()) return p.status();
    auto content = GetString(v, "content", "Replace decoder");
    if (!content.ok()) return content.status();
    return std::unique_ptr<Decoder>(new ReplaceDecoder(*std::move(p), *content));
  }
  if (type == "Strip") {
    auto content = GetString(v, "content", "Strip decoder");
    if (!content.ok()) return content.status();
    if (content->empty() || ValidSequenceLength(*content, 0) != content->size()) {
      return absl::InvalidArgumentError("Strip decoder: content must be one character");
    }
    size_t pos = 0;
    const uint32_t cp = DecodeValid(*content, &pos);
    const JsonValue* start = v.Find("start");
    const JsonValue* stop = v.Find("stop");
    return std::unique_ptr<Decoder>(
        new StripDecoder(cp, start != nullptr ? static_cast<size_t>(start->number) : 0,
                         stop != nullptr ? static_cast<size_t>(stop->number) : 0));
  }
  if (type == "Metaspace") {
    std::string replacement = "\xE2\x96\x81";
    if (const JsonValue* r = v.Find("replacement"); r != nullptr && r->is_string()) {
      replacement = r->str;
    }
    PrependScheme scheme = PrependScheme::kAlways;
    if (const JsonValue* ps = v.Find("prepend_scheme"); ps != nullptr && ps->is_string()) {
      scheme = ps->str == "never"   ? PrependScheme::kNever
               : ps->str == "first" ? PrependScheme::kFirst
                                    : PrependScheme::kAlways;
    } else if (!GetBool(v, "add_prefix_space", true)) {
      scheme = PrependScheme::kNever;
    }
    return std::unique_ptr<Decoder>(new MetaspaceDecoder(replacement, scheme));
  }
  if (type == "Sequence") {
    const JsonValue* list = v.Find("decoders");
    if (list == nullptr || !list->is_array()) {
      return absl::InvalidArgumentError("Sequence decoder: missing \"decoders\" list");
    }
    std::vector<std::unique_ptr<Decoder>> steps;
    for (const JsonValue& child : list->array) {
      auto d = MakeDecoder(child);
      if (!d.ok()) return d.status();
      steps.push_back(*std::move(d));
    }
    return std::unique_ptr<Decoder>(new SequenceDecoder(std::move(steps)));
  }
  return absl::UnimplementedError(
      absl::StrCat("unsupported decoder type \"", type, "\" in tokenizer.json"));
}

// ---------------------------------------------------------------------------
// Added tokens: a byte trie, matched leftmost-longest like tokenizers'
// Aho-Corasick (MatchKind::LeftmostLongest).
// ---------------------------------------------------------------------------

struct AddedToken {
  std::string content;
  int32_t id;
  bool single_word, lstrip, rstrip, normalized, special;
};

class AddedTokenMatcher {
 public:
  void Add(absl::string_view pattern, int32_t token_index) {
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
  bool empty() const { return nodes_.empty(); }

  // Leftmost-longest, non-overlapping matches: (begin, end, token_index).
  void FindAll(absl::string_view text,
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
        auto it =
            children_.find((static_cast<uint64_t>(node) << 8) | static_cast<uint8_t>(text[i]));
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

 private:
  std::vector<int32_t> nodes_;  // token index at each node, or -1
  absl::flat_hash_map<uint64_t, int32_t> children_;
  std::bitset<256> first_byte_;
};

// ---------------------------------------------------------------------------
// Post-processing
// ---------------------------------------------------------------------------

struct TemplateItem {
  bool is_sequence;                  // the input sequence ("A")
  std::vector<int32_t> special_ids;  // otherwise: these ids
};

absl::Status MakePostProcessor(const JsonValue& v, std::vector<TemplateItem>* items) {
  const std::string type = TypeOf(v);
  if (type == "ByteLevel") return absl::OkStatus();  // offsets only
  if (type == "Sequence") {
    const JsonValue* list = v.Find("processors");
    if (list == nullptr || !list->is_array()) {
      return absl::InvalidArgumentError("Sequence post-processor: missing \"processors\"");
    }
    for (const JsonValue& child : list->array) {
      std::vector<TemplateItem> sub;
      absl::Status s = MakePostProcessor(child, &sub);
      if (!s.ok()) return s;
      if (!sub.empty()) {
        if (!items->empty()) {
          return absl::UnimplementedError("Sequence post-processor: more than one template");
        }
        *items = std::move(sub);
      }
    }
    return absl::OkStatus();
  }
  if (type == "BertProcessing" || type == "RobertaProcessing") {
    const JsonValue* cls = v.Find("cls");
    const JsonValue* sep = v.Find("sep");
    if (cls == nullptr || sep == nullptr || cls->array.size() != 2 || sep->array.size() != 2) {
      return absl::InvalidArgumentError(absl::StrCat(type, ": missing cls/sep"));
    }
    items->push_back({false, {static_cast<int32_t>(cls->array[1].number)}});
    items->push_back({true, {}});
    items->push_back({false, {static_cast<int32_t>(sep->array[1].number)}});
    return absl::OkStatus();
  }
  if (type == "TemplateProcessing") {
    const JsonValue* single = v.Find("single");
    const JsonValue* specials = v.Find("special_tokens");
    if (single == nullptr || !single->is_array()) {
      return absl::InvalidArgumentError("TemplateProcessing: missing \"single\"");
    }
    for (const JsonValue& piece : single->array) {
      if (const JsonValue* seq = piece.Find("Sequence"); seq != nullptr) {
        const JsonValue* id = seq->Find("id");
        if (id == nullptr || !id->is_string() || id->str != "A") {
          return absl::InvalidArgumentError("TemplateProcessing: single template must use A");
        }
        items->push_back({true, {}});
        continue;
      }
      const JsonValue* sp = piece.Find("SpecialToken");
      const JsonValue* name = sp != nullptr ? sp->Find("id") : nullptr;
      if (name == nullptr || !name->is_string()) {
        return absl::InvalidArgumentError("TemplateProcessing: bad template piece");
      }
      const JsonValue* entry = specials != nullptr ? specials->Find(name->str) : nullptr;
      const JsonValue* ids = entry != nullptr ? entry->Find("ids") : nullptr;
      if (ids == nullptr || !ids->is_array()) {
        return absl::InvalidArgumentError(
            absl::StrCat("TemplateProcessing: special token ", name->str, " not defined"));
      }
      TemplateItem item{false, {}};
      for (const JsonValue& id : ids->array)
        item.special_ids.push_back(static_cast<int32_t>(id.number));
      items->push_back(std::move(item));
    }
    return absl::OkStatus();
  }
  return absl::UnimplementedError(
      absl::StrCat("unsupported post-processor type \"", type, "\" in tokenizer.json"));
}

}  // namespace

// ---------------------------------------------------------------------------
// Tokenizer
// ---------------------------------------------------------------------------

struct Tokenizer::Impl {
  std::unique_ptr<BpeModel> model;
  std::unique_ptr<Normalizer> normalizer;
  std::vector<std::unique_ptr<PreTokenizer>> pre_tokenizers;
  bool byte_level_raw = false;  // last pre-tokenizer is ByteLevel: BPE reads raw bytes
  bool views_ok = false;        // every pre-tokenizer works on views
  std::unique_ptr<Decoder> decoder;
  std::vector<TemplateItem> post_template;

  std::vector<AddedToken> added;
  absl::flat_hash_map<int32_t, int32_t> added_by_id;  // id -> index into `added`
  absl::flat_hash_map<std::string, int32_t> added_by_content;
  absl::flat_hash_set<std::string> special_contents;
  AddedTokenMatcher raw_matcher;         // normalized == false
  AddedTokenMatcher normalized_matcher;  // normalized == true
  int32_t id_limit = 0;

  bool IdToToken(int32_t id, absl::string_view* token) const {
    auto it = added_by_id.find(id);
    if (it != added_by_id.end()) {
      *token = added[it->second].content;
      return true;
    }
    return model->IdToToken(id, token);
  }

  // tokenizers' AddedVocabulary::find_matches, then `fn` on each split:
  // fn(text, added_index or -1, begin).
  template <typename Fn>
  void SplitAdded(absl::string_view text, const AddedTokenMatcher& matcher, Fn fn) const {
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
      const AddedToken& tok = added[std::get<2>(m)];
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
      if (start_offset < start)
        fn(text.substr(start_offset, start - start_offset), -1, start_offset);
      fn(text.substr(start, stop - start), std::get<2>(m), start);
      start_offset = stop;
    }
    if (start_offset != text.size()) {
      fn(text.substr(start_offset), -1, start_offset);
    }
  }

  void EncodeNormalizedPiece(absl::string_view text, bool at_start,
                             std::vector<int32_t>* ids) const {
    if (text.empty()) return;
    if (pre_tokenizers.empty()) {
      model->Tokenize(text, byte_level_raw, ids);
      return;
    }
    if (views_ok) {
      thread_local std::vector<absl::string_view> views;
      views.clear();
      views.push_back(text);
      for (const auto& p : pre_tokenizers) p->PreTokenizeViews(&views);
      for (absl::string_view v : views) model->Tokenize(v, byte_level_raw, ids);
      return;
    }
    std::vector<Piece> pieces;
    pieces.push_back(Piece{std::string(text), at_start});
    for (const auto& p : pre_tokenizers) p->PreTokenize(&pieces);
    for (const Piece& p : pieces) model->Tokenize(p.text, byte_level_raw, ids);
  }
};

Tokenizer::Tokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Tokenizer::~Tokenizer() = default;

absl::StatusOr<std::unique_ptr<Tokenizer>> Tokenizer::FromFile(const std::string& path) {
  // Map the file (no copy, no zero-filled buffer): FromJson copies what it keeps.
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::NotFoundError(absl::StrCat("cannot open tokenizer file ", path));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    return absl::InternalError(absl::StrCat("cannot stat ", path));
  }
  const size_t size = static_cast<size_t>(st.st_size);
  void* map = nullptr;
  if (size > 0) {
    map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  }
  close(fd);
  if (map == MAP_FAILED) return absl::InternalError(absl::StrCat("cannot map ", path));
  auto tok = FromJson(absl::string_view(static_cast<const char*>(map), size));
  if (map != nullptr) munmap(map, size);
  if (!tok.ok()) {
    return absl::Status(tok.status().code(), absl::StrCat(path, ": ", tok.status().message()));
  }
  return tok;
}

absl::StatusOr<std::unique_ptr<Tokenizer>> Tokenizer::FromJson(absl::string_view json) {
  JsonValue root;
  JsonReader reader(json);
  absl::Status s = reader.ParseDocument(&root, {"model.vocab", "model.merges"});
  if (!s.ok()) return s;
  if (!root.is_object()) return absl::InvalidArgumentError("tokenizer.json: not an object");
  auto impl = std::make_unique<Impl>();

  // Model.
  const JsonValue* model = root.Find("model");
  if (model == nullptr || !model->is_object()) {
    return absl::InvalidArgumentError("tokenizer.json: missing \"model\"");
  }
  const std::string model_type = TypeOf(*model);
  if (!(model_type == "BPE" || (model_type.empty() && model->Find("merges") != nullptr))) {
    return absl::UnimplementedError(absl::StrCat("unsupported model type \"", model_type,
                                                 "\" in tokenizer.json (only BPE is supported)"));
  }
  auto bpe = BpeModel::FromJson(*model);
  if (!bpe.ok()) return bpe.status();
  impl->model = *std::move(bpe);
  impl->id_limit = impl->model->id_limit();

  // Normalizer.
  if (const JsonValue* n = root.Find("normalizer"); n != nullptr && !n->is_null()) {
    auto norm = MakeNormalizer(*n);
    if (!norm.ok()) return norm.status();
    impl->normalizer = *std::move(norm);
  }

  // Pre-tokenizer.
  if (const JsonValue* p = root.Find("pre_tokenizer"); p != nullptr && !p->is_null()) {
    std::vector<ByteLevelPreTokenizer*> byte_levels;
    s = MakePreTokenizers(*p, &impl->pre_tokenizers, &byte_levels);
    if (!s.ok()) return s;
    if (!byte_levels.empty() && byte_levels.back() == impl->pre_tokenizers.back().get()) {
      byte_levels.back()->set_map_bytes(false);
      impl->byte_level_raw = true;
    }
    impl->views_ok = true;
    for (const auto& step : impl->pre_tokenizers) impl->views_ok &= step->SupportsViews();
  }

  // Post-processor.
  if (const JsonValue* p = root.Find("post_processor"); p != nullptr && !p->is_null()) {
    s = MakePostProcessor(*p, &impl->post_template);
    if (!s.ok()) return s;
  }

  // Decoder.
  if (const JsonValue* d = root.Find("decoder"); d != nullptr && !d->is_null()) {
    auto dec = MakeDecoder(*d);
    if (!dec.ok()) return dec.status();
    impl->decoder = *std::move(dec);
  }

  // Added tokens.
  if (const JsonValue* list = root.Find("added_tokens"); list != nullptr && list->is_array()) {
    for (const JsonValue& t : list->array) {
      const JsonValue* id = t.Find("id");
      const JsonValue* content = t.Find("content");
      if (id == nullptr || content == nullptr || !content->is_string()) {
        return absl::InvalidArgumentError("added_tokens: each entry needs id and content");
      }
      AddedToken tok{content->str,
                     static_cast<int32_t>(id->number),
                     GetBool(t, "single_word", false),
                     GetBool(t, "lstrip", false),
                     GetBool(t, "rstrip", false),
                     GetBool(t, "normalized", true),
                     GetBool(t, "special", false)};
      auto existing = impl->added_by_id.find(tok.id);
      int32_t index;
      if (existing != impl->added_by_id.end()) {
        index = existing->second;
        impl->added[index] = tok;
      } else {
        index = static_cast<int32_t>(impl->added.size());
        impl->added.push_back(tok);
        impl->added_by_id[tok.id] = index;
      }
      impl->added_by_content[tok.content] = tok.id;
      if (tok.special) impl->special_contents.insert(tok.content);
      impl->id_limit = std::max(impl->id_limit, tok.id + 1);
    }
    for (size_t i = 0; i < impl->added.size(); ++i) {
      const AddedToken& tok = impl->added[i];
      if (tok.normalized) {
        std::string pattern = tok.content;
        if (impl->normalizer != nullptr) impl->normalizer->Normalize(&pattern);
        impl->normalized_matcher.Add(pattern, static_cast<int32_t>(i));
      } else {
        impl->raw_matcher.Add(tok.content, static_cast<int32_t>(i));
      }
    }
  }
  return std::unique_ptr<Tokenizer>(new Tokenizer(std::move(impl)));
}

std::vector<int32_t> Tokenizer::Encode(absl::string_view text, bool add_special_tokens) const {
  const Impl& im = *impl_;
  std::string cleaned;
  if (!IsValidUtf8(text)) {
    cleaned = ToValidUtf8Lossy(text);
    text = cleaned;
  }
  std::vector<int32_t> ids;
  ids.reserve(text.size() / 3 + 4);
  auto encode_sequence = [&]() {
    im.SplitAdded(text, im.raw_matcher, [&](absl::string_view piece, int32_t added, size_t begin) {
      if (added >= 0) {
        ids.push_back(im.added[added].id);
        return;
      }
      if (piece.empty()) return;
      std::string normalized(piece);
      if (im.normalizer != nullptr) im.normalizer->Normalize(&normalized);
      if (normalized.empty()) return;
      const bool at_start = begin == 0;
      im.SplitAdded(normalized, im.normalized_matcher,
                    [&](absl::string_view sub, int32_t added2, size_t begin2) {
                      if (added2 >= 0) {
                        ids.push_back(im.added[added2].id);
                        return;
                      }
                      im.EncodeNormalizedPiece(sub, at_start && begin2 == 0, &ids);
                    });
    });
  };
  if (!add_special_tokens || im.post_template.empty()) {
    encode_sequence();
    return ids;
  }
  for (const TemplateItem& item : im.post_template) {
    if (item.is_sequence) {
      encode_sequence();
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
    if (skip_special_tokens && im.special_contents.contains(t)) continue;
    tokens.emplace_back(t);
  }
  if (im.decoder == nullptr) return absl::StrJoin(tokens, " ");
  im.decoder->DecodeChain(&tokens);
  return absl::StrJoin(tokens, "");
}

std::optional<int32_t> Tokenizer::TokenToId(absl::string_view token) const {
  auto it = impl_->added_by_content.find(token);
  if (it != impl_->added_by_content.end()) return it->second;
  return impl_->model->TokenToId(token);
}

std::optional<std::string> Tokenizer::IdToToken(int32_t id) const {
  absl::string_view t;
  if (!impl_->IdToToken(id, &t)) return std::nullopt;
  return std::string(t);
}

bool Tokenizer::IsSpecial(int32_t id) const {
  absl::string_view t;
  return impl_->IdToToken(id, &t) && impl_->special_contents.contains(t);
}

int32_t Tokenizer::id_limit() const { return impl_->id_limit; }

// ---------------------------------------------------------------------------
// StreamDecoder (tokenizers' step_decode_stream)
// ---------------------------------------------------------------------------

namespace {
bool EndsWithReplacement(const std::string& s) {
  return s.size() >= 3 && s.compare(s.size() - 3, 3, "\xEF\xBF\xBD") == 0;
}
}  // namespace

std::string StreamDecoder::Step(int32_t id) {
  // (tokenizers also re-seeds an empty prefix from the pending ids here, for
  // streams started from a prompt; ours start empty, and re-seeding would
  // count held-back byte tokens as emitted.)
  ids_.push_back(id);
  // A run of byte-fallback tokens (<0xXX>) is decoded as one group, and the
  // whole group becomes U+FFFDs if it is not valid UTF-8: hold the run back
  // until it ends so that no byte is emitted that the group could still
  // invalidate (this keeps the stream equal to Decode of all ids).
  // Ids that Decode drops (unknown ids, skipped specials) do not end a run.
  for (auto it = ids_.rbegin(); it != ids_.rend(); ++it) {
    const std::optional<std::string> token = tokenizer_.IdToToken(*it);
    if (!token.has_value() || (skip_special_tokens_ && tokenizer_.IsSpecial(*it))) continue;
    if (ParseByteToken(*token) >= 0) return std::string();
    break;
  }
  std::string s = tokenizer_.Decode(ids_, skip_special_tokens_);
  if (s.size() > prefix_.size() && !EndsWithReplacement(s)) {
    std::string new_text;
    if (s.compare(0, prefix_.size(), prefix_) == 0) {
      new_text = s.substr(prefix_.size());
    } else {
      // The decoder rewrote earlier text (not seen with these decoders): emit
      // the new tail from the first character boundary after the prefix.
      size_t cut = prefix_.size();
      while (cut < s.size() && (static_cast<uint8_t>(s[cut]) & 0xC0) == 0x80) ++cut;
      new_text = s.substr(cut);
    }
    const size_t new_prefix_index = ids_.size() - prefix_index_;
    ids_.erase(ids_.begin(), ids_.begin() + prefix_index_);
    prefix_ = tokenizer_.Decode(ids_, skip_special_tokens_);
    prefix_index_ = new_prefix_index;
    return new_text;
  }
  return std::string();
}

std::string StreamDecoder::Flush() {
  std::string s = tokenizer_.Decode(ids_, skip_special_tokens_);
  std::string rest;
  if (s.size() > prefix_.size()) {
    size_t cut = prefix_.size();
    while (cut < s.size() && (static_cast<uint8_t>(s[cut]) & 0xC0) == 0x80) ++cut;
    rest = s.substr(cut);
  }
  ids_.clear();
  prefix_.clear();
  prefix_index_ = 0;
  return rest;
}

}  // namespace tokenizer
}  // namespace oxinfer
