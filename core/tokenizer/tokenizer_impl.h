// The parts of a loaded Tokenizer (internal to //core/tokenizer): built by
// tokenizer_load.cc, used by tokenizer.cc.
#ifndef OXINFER_CORE_TOKENIZER_TOKENIZER_IMPL_H_
#define OXINFER_CORE_TOKENIZER_TOKENIZER_IMPL_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/tokenizer/added_tokens.h"
#include "core/tokenizer/bpe.h"
#include "core/tokenizer/decoders.h"
#include "core/tokenizer/normalizers.h"
#include "core/tokenizer/post_processor.h"
#include "core/tokenizer/pre_tokenizers.h"
#include "core/tokenizer/tokenizer.h"

namespace oxinfer {
namespace tokenizer {

struct Tokenizer::Impl {
  std::unique_ptr<BpeModel> model;
  std::unique_ptr<Normalizer> normalizer;   // may be null
  PreTokenizerChain pre_tokenizer;          // may have no steps
  std::unique_ptr<Decoder> decoder;         // may be null
  std::vector<TemplateItem> post_template;  // empty: nothing added
  AddedVocabulary added;
  int32_t id_limit = 0;

  // Added tokens first, then the model's vocabulary.
  bool IdToToken(int32_t id, absl::string_view* token) const;
  // Appends the ids of `text` (valid UTF-8), without post-processing;
  // `options` (may be null) says which special tokens are not matched.
  void EncodeSequence(absl::string_view text, std::vector<int32_t>* ids,
                      const EncodeOptions* options = nullptr) const;
  // Pre-tokenizes and encodes normalized text that holds no added token.
  void EncodeNormalizedPiece(absl::string_view text, bool at_start,
                             std::vector<int32_t>* ids) const;
};

}  // namespace tokenizer
}  // namespace oxinfer

#endif  // OXINFER_CORE_TOKENIZER_TOKENIZER_IMPL_H_
