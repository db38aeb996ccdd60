// The libFuzzer entry of server_request_fuzzer.h.
#include "fuzz/server_request_fuzzer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)oxinfer::ParseServerRequestFuzzInput(data, size);
  return 0;
}
