// Decoders of tokenizer.json: ByteLevel, Replace, ByteFallback, Fuse, Strip,
// Metaspace, Sequence. They rewrite the token strings of an id sequence;
// Decode then concatenates what is left.
#ifndef OXINFER_CORE_TOKENIZER_DECODERS_H_
#define OXINFER_CORE_TOKENIZER_DECODERS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/tokenizer/json.h"

namespace oxinfer {
namespace tokenizer {

class Decoder {
 public:
  virtual ~Decoder() = default;
  virtual void DecodeChain(std::vector<std::string>* tokens) const = 0;
};

// From the "decoder" object; other types are refused with an error naming
// them.
absl::StatusOr<std::unique_ptr<Decoder>> MakeDecoder(const JsonValue& v);

// The byte b of a byte-fallback token "<0xXX>", or -1 for other tokens.
int ParseByteToken(const std::string& t);

}  // namespace tokenizer
}  // namespace oxinfer

#endif  // OXINFER_CORE_TOKENIZER_DECODERS_H_
