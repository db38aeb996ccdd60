// The clip tokenizer fuzz target over its seed corpus (fuzz/corpus_check.h).
#include "fuzz/clip_tokenizer_fuzzer.h"
#include "fuzz/corpus_check.h"
#include "gtest/gtest.h"

namespace oxinfer {
namespace {

TEST(ClipTokenizerCorpusTest, EverySeed) {
  CheckSeedCorpus("fuzz/corpus/clip_tokenizer", 8, &ClipTokenizerFuzzInput);
}

}  // namespace
}  // namespace oxinfer
