// The server request fuzz target over its seed corpus (fuzz/corpus_check.h).
#include "fuzz/corpus_check.h"
#include "fuzz/server_request_fuzzer.h"
#include "gtest/gtest.h"

namespace oxinfer {
namespace {

TEST(ServerRequestCorpusTest, EverySeed) {
  CheckSeedCorpus("fuzz/corpus/server_request", 10, &ParseServerRequestFuzzInput);
}

}  // namespace
}  // namespace oxinfer
