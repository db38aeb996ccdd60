// UTF-8 helpers shared by the tokenizer: decoding, validation and the lossy
// conversion used by HuggingFace `tokenizers` (Rust's String::from_utf8_lossy,
// which matches Python's bytes.decode("utf-8", "replace")).
#ifndef OXINFER_CORE_TOKENIZER_UTF8_H_
#define OXINFER_CORE_TOKENIZER_UTF8_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace oxinfer {
namespace tokenizer {

inline constexpr uint32_t kReplacementChar = 0xFFFD;

// Length in bytes of the well-formed UTF-8 sequence at s[pos], or 0 if the
// bytes there are not a complete well-formed sequence.
size_t ValidSequenceLength(absl::string_view s, size_t pos);

// Decodes the well-formed UTF-8 character at s[pos] (which must be valid) and
// advances *pos past it.
uint32_t DecodeValid(absl::string_view s, size_t* pos);

// Appends the UTF-8 encoding of `cp` to *out.
void AppendUtf8(uint32_t cp, std::string* out);

// True if `s` is entirely well-formed UTF-8.
bool IsValidUtf8(absl::string_view s);

// Replaces every maximal ill-formed subpart (Unicode 15, section 3.9, "U+FFFD
// substitution of maximal subparts") with U+FFFD. Returns `s` unchanged (as a
// copy) when it is valid.
std::string ToValidUtf8Lossy(absl::string_view s);

// Length of the longest suffix of `s` that is an incomplete (but so far
// well-formed) UTF-8 sequence; 0 if `s` ends on a character boundary.
size_t IncompleteSuffixLength(absl::string_view s);

// Unicode White_Space (equals Rust's char::is_whitespace and Oniguruma's \s).
bool IsWhitespace(uint32_t cp);

}  // namespace tokenizer
}  // namespace oxinfer

#endif  // OXINFER_CORE_TOKENIZER_UTF8_H_
