// The chat-template fuzz target over its seed corpus (fuzz/corpus_check.h).
#include "fuzz/corpus_check.h"
#include "fuzz/jinja_template_fuzzer.h"
#include "gtest/gtest.h"

namespace oxinfer {
namespace {

TEST(JinjaCorpusTest, EverySeed) {
  CheckSeedCorpus("fuzz/corpus/jinja", 12, &RenderTemplateFuzzInput);
}

}  // namespace
}  // namespace oxinfer
