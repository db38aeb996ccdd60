// The libFuzzer entry of conversation_fuzzer.h's messages and tools parsers.
#include "fuzz/conversation_fuzzer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)oxinfer::ParseConversationFuzzInput(data, size);
  return 0;
}
