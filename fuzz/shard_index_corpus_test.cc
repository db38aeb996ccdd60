// The shard index fuzz target over its seed corpus (fuzz/corpus_check.h).
#include "fuzz/corpus_check.h"
#include "fuzz/shard_index_fuzzer.h"
#include "gtest/gtest.h"

namespace oxinfer {
namespace {

TEST(ShardIndexCorpusTest, EverySeed) {
  CheckSeedCorpus("fuzz/corpus/shard_index", 8, &OpenShardIndexFuzzInput);
}

}  // namespace
}  // namespace oxinfer
