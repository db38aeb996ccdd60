// The tokenizer.json fuzz target: loading, then encode and decode with the
// loaded tokenizer, callable from ordinary tests too.
#ifndef OXINFER_FUZZ_TOKENIZER_JSON_FUZZER_H_
#define OXINFER_FUZZ_TOKENIZER_JSON_FUZZER_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"

namespace oxinfer {

// Loads the input as tokenizer.json; when it loads, encodes a mixed text
// (ASCII, accents, CJK, emoji, invalid-looking specials) with and without
// special tokens and decodes the ids, every id below id_limit() and a few
// outside. Traps when an encoded id is outside [0, id_limit()) or a decode
// is not valid UTF-8. Returns the load status.
absl::Status LoadTokenizerFuzzInput(const uint8_t* data, size_t size);

}  // namespace oxinfer

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

#endif  // OXINFER_FUZZ_TOKENIZER_JSON_FUZZER_H_
