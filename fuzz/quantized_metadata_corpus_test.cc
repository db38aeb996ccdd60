// The --save-quantized metadata fuzz target over its seed corpus
// (fuzz/corpus_check.h).
#include "fuzz/corpus_check.h"
#include "fuzz/quantized_metadata_fuzzer.h"
#include "gtest/gtest.h"

namespace oxinfer {
namespace {

TEST(QuantizedMetadataCorpusTest, EverySeed) {
  CheckSeedCorpus("fuzz/corpus/quantized_metadata", 8, &ParseQuantizedMetadataFuzzInput);
}

}  // namespace
}  // namespace oxinfer
