// The safetensors fuzz target over its seed corpus (fuzz/corpus_check.h).
#include "fuzz/corpus_check.h"
#include "fuzz/safetensors_header_fuzzer.h"
#include "gtest/gtest.h"

namespace oxinfer {
namespace {

TEST(SafetensorsCorpusTest, EverySeed) {
  CheckSeedCorpus("fuzz/corpus/safetensors", 20, &ParseFuzzInput);
}

}  // namespace
}  // namespace oxinfer
