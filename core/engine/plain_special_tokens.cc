#include "core/engine/plain_special_tokens.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace oxinfer::engine {
namespace {

constexpr char kOpen[] = "\xEF\xB7\x90";   // U+FDD0
constexpr char kClose[] = "\xEF\xB7\x91";  // U+FDD1
constexpr size_t kBracketBytes = 3;

absl::StatusOr<std::string> Bracket(const tokenizer::Tokenizer& tokenizer, const std::string& text,
                                    size_t message, const char* what) {
  if (text.find(kOpen) != std::string::npos || text.find(kClose) != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "message %d: its %s holds U+FDD0 or U+FDD1, which keeping special tokens as plain text "
        "reserves",
        message, what));
  }
  std::string out;
  size_t at = 0;
  for (const tokenizer::Tokenizer::Range& r : tokenizer.SpecialTokenSpans(text)) {
    absl::StrAppend(&out, absl::string_view(text).substr(at, r.begin - at), kOpen,
                    absl::string_view(text).substr(r.begin, r.end - r.begin), kClose);
    at = r.end;
  }
  if (at == 0) return text;
  out.append(text, at, std::string::npos);
  return out;
}

}  // namespace

absl::StatusOr<std::vector<Message>> BracketSpecialTokens(const tokenizer::Tokenizer& tokenizer,
                                                          const std::vector<Message>& messages) {
  std::vector<Message> out = messages;
  for (size_t i = 0; i < out.size(); ++i) {
    for (ContentPart& part : out[i].content) {
      absl::StatusOr<std::string> b = Bracket(tokenizer, part.text, i, "text");
      if (!b.ok()) return b.status();
      part.text = *std::move(b);
    }
    absl::StatusOr<std::string> r = Bracket(tokenizer, out[i].reasoning, i, "reasoning");
    if (!r.ok()) return r.status();
    out[i].reasoning = *std::move(r);
  }
  return out;
}

absl::StatusOr<UnbracketedText> RemoveBrackets(absl::string_view rendered) {
  UnbracketedText out;
  out.text.reserve(rendered.size());
  size_t open_at = std::string::npos;  // in out.text, while inside a bracket
  for (size_t i = 0; i < rendered.size();) {
    const absl::string_view rest = rendered.substr(i);
    if (absl::StartsWith(rest, kOpen) || absl::StartsWith(rest, kClose)) {
      const bool open = absl::StartsWith(rest, kOpen);
      if (open == (open_at != std::string::npos)) {
        return absl::FailedPreconditionError(
            "the chat template split the text of a special token in a message (keeping special "
            "tokens as plain text needs it whole)");
      }
      if (open) {
        open_at = out.text.size();
      } else {
        out.plain.push_back({open_at, out.text.size()});
        open_at = std::string::npos;
      }
      i += kBracketBytes;
      continue;
    }
    out.text.push_back(rendered[i]);
    ++i;
  }
  if (open_at != std::string::npos) {
    return absl::FailedPreconditionError(
        "the chat template cut the text of a special token in a message (keeping special tokens "
        "as plain text needs it whole)");
  }
  return out;
}

}  // namespace oxinfer::engine
