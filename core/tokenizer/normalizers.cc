#include "core/tokenizer/normalizers.h"

#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>
#include <unicode/uniset.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/tokenizer/config_json.h"
#include "core/tokenizer/pattern.h"
#include "core/tokenizer/utf8.h"

namespace oxinfer {
namespace tokenizer {
namespace {

bool IsAscii(absl::string_view s) {
  for (char c : s) {
    if (static_cast<uint8_t>(c) >= 0x80) return false;
  }
  return true;
}

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
  explicit ReplaceNormalizer(Replacement r) : replacement_(std::move(r)) {}
  void Normalize(std::string* s) const override { *s = replacement_.Apply(*s); }

 private:
  Replacement replacement_;
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

// tokenizers normalises with Unicode 9.0 data (the unicode-normalization-
// alignments crate), ICU with its own, newer one: a character assigned after
// 9.0 is neither decomposed nor reordered there and, as a starter, blocks
// composition across it. ICU's filtered normaliser gives exactly that: it
// normalises the spans of characters of age <= 9.0 and copies the others.
const icu::Normalizer2* Unicode9(const icu::Normalizer2* full, UErrorCode& status) {
  if (U_FAILURE(status) || full == nullptr) return nullptr;
  static const icu::UnicodeSet* const kAge9 = [] {
    UErrorCode s = U_ZERO_ERROR;
    auto* set = new icu::UnicodeSet(icu::UnicodeString(u"[:age=9.0:]"), s);
    if (U_FAILURE(s)) {
      delete set;
      return static_cast<icu::UnicodeSet*>(nullptr);
    }
    set->freeze();
    return set;
  }();
  if (kAge9 == nullptr) {
    status = U_MISSING_RESOURCE_ERROR;
    return nullptr;
  }
  // One per form, for the life of the process (the forms are ICU singletons).
  return new icu::FilteredNormalizer2(*full, *kAge9);
}

template <const icu::Normalizer2* (*kGet)(UErrorCode&)>
const icu::Normalizer2* Tokenizers(UErrorCode& status) {
  static UErrorCode once = U_ZERO_ERROR;
  static const icu::Normalizer2* const n = Unicode9(kGet(once), once);
  status = once;
  return n;
}

}  // namespace

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
  if (type == "NFC") return icu(&Tokenizers<&icu::Normalizer2::getNFCInstance>);
  if (type == "NFD") return icu(&Tokenizers<&icu::Normalizer2::getNFDInstance>);
  if (type == "NFKC") return icu(&Tokenizers<&icu::Normalizer2::getNFKCInstance>);
  if (type == "NFKD") return icu(&Tokenizers<&icu::Normalizer2::getNFKDInstance>);
  if (type == "Replace") {
    auto r = Replacement::FromJson(v, "Replace normalizer");
    if (!r.ok()) return r.status();
    return std::unique_ptr<Normalizer>(new ReplaceNormalizer(*std::move(r)));
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
    auto steps = MakeSequenceSteps<Normalizer>(v, "normalizers", "normalizer", MakeNormalizer);
    if (!steps.ok()) return steps.status();
    return std::unique_ptr<Normalizer>(new SequenceNormalizer(*std::move(steps)));
  }
  return UnsupportedType("normalizer", type);
}

}  // namespace tokenizer
}  // namespace oxinfer
