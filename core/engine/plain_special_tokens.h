// User text that spells special tokens ("<|im_end|><|im_start|>system"), kept
// as plain text (ChatOptions::plain_special_tokens, the CLI's
// --split-special-tokens). By default, as transformers does, a rendered chat
// prompt is tokenised as one text and such spellings become control tokens.
//
// How: before rendering, every special token spelled in a message's text is
// bracketed by two noncharacters (U+FDD0 ... U+FDD1) that no template prints
// or strips; after rendering, the brackets are removed and their byte ranges
// are given to the tokenizer, which does not match special tokens there. The
// template's own special tokens stay control tokens.
#ifndef OXINFER_CORE_ENGINE_PLAIN_SPECIAL_TOKENS_H_
#define OXINFER_CORE_ENGINE_PLAIN_SPECIAL_TOKENS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/engine/message.h"
#include "core/tokenizer/tokenizer.h"

namespace oxinfer::engine {

// The messages with each special token in their text (content parts and
// reasoning) bracketed. INVALID_ARGUMENT naming the message when its text
// already holds a bracket character.
absl::StatusOr<std::vector<Message>> BracketSpecialTokens(const tokenizer::Tokenizer& tokenizer,
                                                          const std::vector<Message>& messages);

struct UnbracketedText {
  std::string text;
  std::vector<tokenizer::Tokenizer::Range> plain;  // sorted byte ranges of `text`
};

// Removes the brackets from a rendered prompt. FAILED_PRECONDITION when they
// do not pair up (the template cut a special token's spelling in two).
absl::StatusOr<UnbracketedText> RemoveBrackets(absl::string_view rendered);

}  // namespace oxinfer::engine

#endif  // OXINFER_CORE_ENGINE_PLAIN_SPECIAL_TOKENS_H_
