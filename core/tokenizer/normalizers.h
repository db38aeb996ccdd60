// Normalizers of tokenizer.json: NFC, NFD, NFKC, NFKD (ICU, restricted to the
// Unicode 9.0 characters tokenizers knows), Replace,
// Prepend, Strip and Sequence.
#ifndef OXINFER_CORE_TOKENIZER_NORMALIZERS_H_
#define OXINFER_CORE_TOKENIZER_NORMALIZERS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "core/tokenizer/json.h"

namespace oxinfer {
namespace tokenizer {

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  // Rewrites valid UTF-8 in place.
  virtual void Normalize(std::string* s) const = 0;
};

// From the "normalizer" object; other types are refused with an error naming
// them.
absl::StatusOr<std::unique_ptr<Normalizer>> MakeNormalizer(const JsonValue& v);

}  // namespace tokenizer
}  // namespace oxinfer

#endif  // OXINFER_CORE_TOKENIZER_NORMALIZERS_H_
