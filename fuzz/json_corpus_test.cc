// The json_parse fuzz target over its seed corpus (fuzz/corpus_check.h).
#include "fuzz/corpus_check.h"
#include "fuzz/json_document_fuzzer.h"
#include "gtest/gtest.h"

namespace oxinfer {
namespace {

TEST(JsonCorpusTest, EverySeed) { CheckSeedCorpus("fuzz/corpus/json", 20, &ParseJsonFuzzInput); }

}  // namespace
}  // namespace oxinfer
