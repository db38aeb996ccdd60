// The model config fuzz target over its seed corpus (fuzz/corpus_check.h).
#include "fuzz/corpus_check.h"
#include "fuzz/model_config_fuzzer.h"
#include "gtest/gtest.h"

namespace oxinfer {
namespace {

TEST(ModelConfigCorpusTest, EverySeed) {
  CheckSeedCorpus("fuzz/corpus/model_config", 8, &ParseModelConfigFuzzInput);
}

}  // namespace
}  // namespace oxinfer
