// The model families' config parsers as one fuzz target: Gemma 4 (config.json
// with its vision_config, the image processor's and the audio feature
// extractor's settings), Qwen 3.5 (config.json) and Stable Diffusion (the
// UNet's, the VAE's and the CLIP text encoder's config.json, the scheduler's
// scheduler_config.json). Callable from ordinary tests too.
#ifndef OXINFER_FUZZ_MODEL_CONFIG_FUZZER_H_
#define OXINFER_FUZZ_MODEL_CONFIG_FUZZER_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"

namespace oxinfer {

// Gives the input (JSON text) to every parser. OK when one of them accepts
// it (an SD component: its config is accepted when loading stops at the
// missing weights); traps when an accepted config breaks the invariants the
// model code relies on (positive sizes, divisibility, finite epsilons).
absl::Status ParseModelConfigFuzzInput(const uint8_t* data, size_t size);

}  // namespace oxinfer

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

#endif  // OXINFER_FUZZ_MODEL_CONFIG_FUZZER_H_
