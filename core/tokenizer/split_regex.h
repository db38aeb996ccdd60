// Regex matching for Split pre-tokenizers and Replace normalizers/decoders.
//
// HuggingFace `tokenizers` runs these patterns through Oniguruma. We use RE2
// and translate the Oniguruma constructs these files use:
//  - \s, \S, \d, \w (Unicode-aware in Oniguruma, ASCII-only in RE2) become
//    explicit Unicode classes;
//  - the GPT-2 style alternative `\s+(?!\S)` (negative lookahead, which RE2
//    lacks) is reproduced exactly in code: a whitespace run that reaches the end
//    of the text matches whole, a longer run before a non-space gives back its
//    last character, and a single space before a non-space lets the following
//    alternatives try.
// Any other lookaround is refused with an error naming the pattern.
#ifndef OXINFER_CORE_TOKENIZER_SPLIT_REGEX_H_
#define OXINFER_CORE_TOKENIZER_SPLIT_REGEX_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "re2/re2.h"

namespace oxinfer {
namespace tokenizer {

class SplitRegex {
 public:
  // `pattern` uses Oniguruma (Ruby) syntax as found in tokenizer.json files.
  static absl::StatusOr<std::unique_ptr<SplitRegex>> Create(absl::string_view pattern);

  // Appends the byte ranges [begin, end) of all non-overlapping, non-empty
  // matches in `text`, left to right (Oniguruma's leftmost-first semantics).
  void FindAll(absl::string_view text, std::vector<std::pair<size_t, size_t>>* out) const;

  // The RE2 translation (for diagnostics and tests).
  const std::string& translated() const { return translated_; }

 private:
  SplitRegex() = default;

  std::unique_ptr<RE2> main_;
  std::unique_ptr<RE2> prefix_;  // alternatives before `\s+(?!\S)`, or null
  std::unique_ptr<RE2> suffix_;  // alternatives after it, or null
  bool ws_lookahead_ = false;
  std::string translated_;
};

// Translates an Oniguruma pattern without lookaround to RE2 syntax (exposed for
// tests). Fails on lookaround or unsupported escapes inside classes.
absl::StatusOr<std::string> TranslateOnigToRe2(absl::string_view pattern);

}  // namespace tokenizer
}  // namespace oxinfer

#endif  // OXINFER_CORE_TOKENIZER_SPLIT_REGEX_H_
