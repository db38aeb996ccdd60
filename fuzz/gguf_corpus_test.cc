// The GGUF header fuzz target over its seed corpus (fuzz/corpus_check.h).
#include "fuzz/corpus_check.h"
#include "fuzz/gguf_header_fuzzer.h"
#include "gtest/gtest.h"

namespace oxinfer {
namespace {

TEST(GgufCorpusTest, EverySeed) { CheckSeedCorpus("fuzz/corpus/gguf", 6, &ParseGgufFuzzInput); }

}  // namespace
}  // namespace oxinfer
