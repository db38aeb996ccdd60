// llama.cpp's tokenizer test vectors (shared/data/templates/*/tokenizer_test_vectors),
// checked where the vocabulary matches: Gemma 4's vectors against the Gemma 3
// tokenizer.json (same vocabulary), Qwen 3.5's against Qwen 3's. Qwen 3's file
// normalises with NFC and Qwen 3.5's does not, so inputs that NFC changes
// (decomposed accents) are expected to differ and are skipped, by name.
#include <unicode/normalizer2.h>
#include <unicode/unistr.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "core/tokenizer/tokenizer.h"
#include "gtest/gtest.h"
#include "tests/tokenizer/shared_data.h"

namespace oxinfer {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool IsNfc(const std::string& s) {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfc = icu::Normalizer2::getNFCInstance(status);
  if (U_FAILURE(status)) return true;
  return nfc->isNormalized(icu::UnicodeString::fromUTF8(s), status) != 0;
}

struct Result {
  int checked = 0, skipped = 0;
};

Result CheckVectors(const std::string& tokenizer_json, const std::string& vectors,
                    bool skip_non_nfc) {
  Result r;
  auto tok = tokenizer::Tokenizer::FromFile(tokenizer_json);
  EXPECT_TRUE(tok.ok()) << tok.status();
  if (!tok.ok()) return r;
  std::vector<std::string> inputs =
      absl::StrSplit(ReadFile(vectors + ".inp"), "\n__ggml_vocab_test__\n");
  std::vector<std::string> outputs = absl::StrSplit(ReadFile(vectors + ".out"), '\n');
  EXPECT_GE(outputs.size(), 10u);
  for (size_t i = 0; i < inputs.size() && i < outputs.size(); ++i) {
    if (inputs[i].empty() && outputs[i].empty()) continue;
    if (skip_non_nfc && !IsNfc(inputs[i])) {
      ++r.skipped;
      continue;
    }
    std::vector<int32_t> expected;
    for (absl::string_view id : absl::StrSplit(outputs[i], ' ', absl::SkipEmpty())) {
      int32_t v;
      EXPECT_TRUE(absl::SimpleAtoi(id, &v));
      expected.push_back(v);
    }
    EXPECT_EQ((*tok)->Encode(inputs[i], /*add_special_tokens=*/false), expected)
        << "vector " << i << ": '" << inputs[i] << "'";
    ++r.checked;
  }
  return r;
}

class LlamaVectorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FindTokenizersDir("tests/tokenizer/testdata/qwen3.bin.gz");
    if (dir_.empty()) GTEST_SKIP() << "shared/data not found beside the checkout";
  }
  std::string dir_;  // .../shared/data/tokenizers
};

TEST_F(LlamaVectorsTest, Gemma4VectorsWithGemma3Vocabulary) {
  const Result r = CheckVectors(
      dir_ + "/gemma3/tokenizer.json",
      dir_ + "/../templates/gemma4/tokenizer_test_vectors/ggml-vocab-gemma-4.gguf", false);
  EXPECT_EQ(r.checked, 45);  // of 46: one is the empty string
}

TEST_F(LlamaVectorsTest, Qwen35VectorsWithQwen3Vocabulary) {
  const Result r = CheckVectors(
      dir_ + "/qwen3/tokenizer.json",
      dir_ + "/../templates/qwen35/tokenizer_test_vectors/ggml-vocab-qwen35.gguf", true);
  EXPECT_EQ(r.checked, 46);  // of 50: one empty string, three skipped
  EXPECT_EQ(r.skipped, 3);  // 'é', 'résumé', 'à...' in decomposed form
}

}  // namespace
}  // namespace oxinfer
