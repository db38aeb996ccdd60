// The Hub model-info fuzz target over its seed corpus (fuzz/corpus_check.h).
#include "fuzz/corpus_check.h"
#include "fuzz/hub_model_info_fuzzer.h"
#include "gtest/gtest.h"

namespace oxinfer {
namespace {

TEST(HubModelInfoCorpusTest, EverySeed) {
  CheckSeedCorpus("fuzz/corpus/hub_model_info", 8, &ParseHubModelInfoFuzzInput);
}

}  // namespace
}  // namespace oxinfer
