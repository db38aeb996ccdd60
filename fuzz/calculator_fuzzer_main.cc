// The libFuzzer entry of the built-in calculator (conversation_fuzzer.h).
#include "fuzz/conversation_fuzzer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)oxinfer::CalculateFuzzInput(data, size);
  return 0;
}
