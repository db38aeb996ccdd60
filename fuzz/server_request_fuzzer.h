#ifndef OXINFER_FUZZ_SERVER_REQUEST_FUZZER_H_
#define OXINFER_FUZZ_SERVER_REQUEST_FUZZER_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"

namespace oxinfer {

// A request body for the server (tools/server): the first byte says which
// endpoint (0: chat completions, 1: completions, 2: image generations), the
// rest is the body.
absl::Status ParseServerRequestFuzzInput(const uint8_t* data, size_t size);

}  // namespace oxinfer

#endif  // OXINFER_FUZZ_SERVER_REQUEST_FUZZER_H_
