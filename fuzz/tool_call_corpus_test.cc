// The tool-call, conversation and calculator fuzz targets over their seed
// corpora (fuzz/corpus_check.h).
#include "fuzz/conversation_fuzzer.h"
#include "fuzz/corpus_check.h"
#include "fuzz/tool_call_fuzzer.h"
#include "gtest/gtest.h"

namespace oxinfer {
namespace {

TEST(ToolCallCorpusTest, EverySeed) {
  CheckSeedCorpus("fuzz/corpus/tool_call", 10, &ParseToolCallsFuzzInput);
}
TEST(ConversationCorpusTest, EverySeed) {
  CheckSeedCorpus("fuzz/corpus/conversation", 8, &ParseConversationFuzzInput);
}
TEST(CalculatorCorpusTest, EverySeed) {
  CheckSeedCorpus("fuzz/corpus/calculator", 8, &CalculateFuzzInput);
}

}  // namespace
}  // namespace oxinfer
