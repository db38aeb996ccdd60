// Settings shared by the Metaspace pre-tokenizer and decoder (SentencePiece's
// "▁" for spaces).
#ifndef OXINFER_CORE_TOKENIZER_METASPACE_H_
#define OXINFER_CORE_TOKENIZER_METASPACE_H_

#include <string>

#include "core/tokenizer/json.h"

namespace oxinfer {
namespace tokenizer {

// Where a replacement character is prepended: to every piece, to the piece
// at the start of the input, or nowhere.
enum class PrependScheme { kAlways, kFirst, kNever };

struct MetaspaceConfig {
  std::string replacement;
  PrependScheme scheme;
};

// Reads "replacement" (default U+2581) and "prepend_scheme" (or the older
// "add_prefix_space": false means never). A prepend_scheme other than
// always / first / never reads as always and is returned in *unknown_scheme,
// which is left empty otherwise: the pre-tokenizer refuses it, the decoder
// accepts it.
MetaspaceConfig ReadMetaspaceConfig(const JsonValue& v, std::string* unknown_scheme);

}  // namespace tokenizer
}  // namespace oxinfer

#endif  // OXINFER_CORE_TOKENIZER_METASPACE_H_
