// The fuzz target for the Hub's model-info answers (core/hub/model_info.h)
// and the file selection over them, callable from ordinary tests too.
#ifndef OXINFER_FUZZ_HUB_MODEL_INFO_FUZZER_H_
#define OXINFER_FUZZ_HUB_MODEL_INFO_FUZZER_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"

namespace oxinfer {

// Parses one answer; traps when an accepted one breaks the parser's promises
// (a commit hash, safe relative paths, no duplicates, sizes >= -1, LFS
// digests of 64 characters) or the selection returns a file not listed.
absl::Status ParseHubModelInfoFuzzInput(const uint8_t* data, size_t size);

}  // namespace oxinfer

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

#endif  // OXINFER_FUZZ_HUB_MODEL_INFO_FUZZER_H_
