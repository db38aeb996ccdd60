// The tokenizer.json fuzz target over its seed corpus (fuzz/corpus_check.h).
#include "fuzz/corpus_check.h"
#include "fuzz/tokenizer_json_fuzzer.h"
#include "gtest/gtest.h"

namespace oxinfer {
namespace {

TEST(TokenizerCorpusTest, EverySeed) {
  CheckSeedCorpus("fuzz/corpus/tokenizer", 8, &LoadTokenizerFuzzInput);
}

}  // namespace
}  // namespace oxinfer
