#include "core/tokenizer/normalizers.h"

#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>

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
  if (type == "NFC") return icu(&icu::Normalizer2::getNFCInstance);
  if (type == "NFD") return icu(&icu::Normalizer2::getNFDInstance);
  if (type == "NFKC") return icu(&icu::Normalizer2::getNFKCInstance);
  if (type == "NFKD") return icu(&icu::Normalizer2::getNFKDInstance);
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
