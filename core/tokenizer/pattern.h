// The pattern of Split pre-tokenizers and Replace normalizers and decoders:
// {"String": s} (a literal) or {"Regex": r} (Oniguruma syntax, see
// split_regex.h).
#ifndef OXINFER_CORE_TOKENIZER_PATTERN_H_
#define OXINFER_CORE_TOKENIZER_PATTERN_H_

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/tokenizer/json.h"
#include "core/tokenizer/split_regex.h"

namespace oxinfer {
namespace tokenizer {

// Byte ranges [begin, end).
using Ranges = std::vector<std::pair<size_t, size_t>>;

class Pattern {
 public:
  // `context` names the component in errors.
  static absl::StatusOr<Pattern> FromJson(const JsonValue& v, absl::string_view context);

  // Appends the non-overlapping matches, left to right.
  void FindAll(absl::string_view text, Ranges* out) const;

 private:
  std::string literal_;
  std::shared_ptr<SplitRegex> regex_;
};

// The "pattern" member of a component; `context` names the component in
// errors ("Split pre-tokenizer: missing pattern").
absl::StatusOr<Pattern> PatternMember(const JsonValue& v, absl::string_view context);

// What Replace normalizers and decoders do: every match of "pattern" becomes
// "content".
class Replacement {
 public:
  static absl::StatusOr<Replacement> FromJson(const JsonValue& v, absl::string_view context);
  // `text` with every match replaced.
  std::string Apply(absl::string_view text) const;

 private:
  Replacement(Pattern pattern, std::string content)
      : pattern_(std::move(pattern)), content_(std::move(content)) {}
  Pattern pattern_;
  std::string content_;
};

}  // namespace tokenizer
}  // namespace oxinfer

#endif  // OXINFER_CORE_TOKENIZER_PATTERN_H_
