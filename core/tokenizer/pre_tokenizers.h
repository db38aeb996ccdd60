// Pre-tokenizers of tokenizer.json: Split, ByteLevel, Metaspace, Sequence.
// They cut normalized text into the pieces the model encodes one by one.
#ifndef OXINFER_CORE_TOKENIZER_PRE_TOKENIZERS_H_
#define OXINFER_CORE_TOKENIZER_PRE_TOKENIZERS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/tokenizer/json.h"

namespace oxinfer {
namespace tokenizer {

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

// The "pre_tokenizer" object, Sequences flattened into `steps`.
struct PreTokenizerChain {
  std::vector<std::unique_ptr<PreTokenizer>> steps;
  // The last step is ByteLevel and leaves its pieces as raw bytes: the BPE
  // model maps them (BpeModel::Tokenize with byte_level).
  bool byte_level_raw = false;
  bool views_ok = false;  // every step supports views
};

// Other types are refused with an error naming them.
absl::StatusOr<PreTokenizerChain> MakePreTokenizerChain(const JsonValue& v);

}  // namespace tokenizer
}  // namespace oxinfer

#endif  // OXINFER_CORE_TOKENIZER_PRE_TOKENIZERS_H_
