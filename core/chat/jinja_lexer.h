// The Jinja lexer: template source to a flat token stream of text runs and the
// tokens inside {{ }} and {% %} tags. Whitespace control (-, +, trim_blocks,
// lstrip_blocks), comments and {% raw %} blocks are resolved here, so the
// parser sees only the text that is output.
#ifndef OXINFER_CORE_CHAT_JINJA_LEXER_H_
#define OXINFER_CORE_CHAT_JINJA_LEXER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/chat/jinja.h"

namespace oxinfer::chat::jinja_internal {

enum class Tok {
  kText,
  kVarBegin,
  kVarEnd,
  kBlockBegin,
  kBlockEnd,
  kName,
  kString,
  kInt,
  kFloat,
  kOp,
  kEof
};

struct Token {
  Tok type;
  std::string text;
  int line = 1;
  int64_t ival = 0;
  double fval = 0;
};

// Ends with a kEof token. Fails on unterminated tags, strings and comments.
absl::StatusOr<std::vector<Token>> Tokenize(absl::string_view source, const JinjaOptions& options);

}  // namespace oxinfer::chat::jinja_internal

#endif  // OXINFER_CORE_CHAT_JINJA_LEXER_H_
