// The SD CLIP tokenizer fuzz target (plugins/models/sd/clip_tokenizer.h):
// loading tokenizer.json, and encoding prompts. Callable from ordinary tests.
#ifndef OXINFER_FUZZ_CLIP_TOKENIZER_FUZZER_H_
#define OXINFER_FUZZ_CLIP_TOKENIZER_FUZZER_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"

namespace oxinfer {

// Two shapes of input:
//   PROMPT \0 JSON  the JSON is written as tokenizer.json and loaded; when
//                   it loads, PROMPT is encoded with it (the prompt first:
//                   the prefixes the corpus test runs stay cheap);
//   PROMPT          (no NUL) encoded with a built-in byte-level CLIP
//                   vocabulary (vocab.json + merges.txt, a few merges).
// Traps when an encoding is not [bos, ..., eos, pad...] of exactly
// max_length ids, or (built-in vocabulary) an id is outside it. Returns the
// load status (OK for a prompt alone).
absl::Status ClipTokenizerFuzzInput(const uint8_t* data, size_t size);

}  // namespace oxinfer

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

#endif  // OXINFER_FUZZ_CLIP_TOKENIZER_FUZZER_H_
