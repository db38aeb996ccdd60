// The json_parse fuzz target (the host's strict reader and its flattening
// into oxi_json nodes), callable from ordinary tests too.
#ifndef OXINFER_FUZZ_JSON_DOCUMENT_FUZZER_H_
#define OXINFER_FUZZ_JSON_DOCUMENT_FUZZER_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"

namespace oxinfer {

// Parses one input through the json_parse service and traps when a document
// that parsed breaks the node array's invariants or differs from nlohmann's
// own document of the same text. Returns the parse status.
absl::Status ParseJsonFuzzInput(const uint8_t* data, size_t size);

}  // namespace oxinfer

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

#endif  // OXINFER_FUZZ_JSON_DOCUMENT_FUZZER_H_
