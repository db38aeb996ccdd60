// The CLIP tokenizer against transformers' CLIPTokenizer on the fixture
// vocabularies (sd1 pads with <|endoftext|>, sd2 with "!").
#include "plugins/models/sd/clip_tokenizer.h"

#include <fstream>
#include <sstream>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace oxinfer {
namespace sd {
namespace {

constexpr char kTestdata[] = "tests/models/sd/testdata";

class ClipTokenizerTest : public ::testing::TestWithParam<const char*> {};

TEST_P(ClipTokenizerTest, MatchesTransformers) {
  const std::string model = GetParam();
  absl::StatusOr<ClipTokenizer> tok =
      ClipTokenizer::Load(std::string(kTestdata) + "/" + model + "/tokenizer");
  ASSERT_TRUE(tok.ok()) << tok.status();
  EXPECT_EQ(tok->max_length(), 77);
  std::ifstream in(std::string(kTestdata) + "/tokenizer_cases_" + model + ".json");
  ASSERT_TRUE(in) << "missing tokenizer cases";
  std::stringstream ss;
  ss << in.rdbuf();
  nlohmann::json cases = nlohmann::json::parse(ss.str());
  ASSERT_GT(cases.size(), 10u);
  for (const auto& c : cases) {
    const std::string text = c["text"].get<std::string>();
    const std::vector<int32_t> want = c["ids"].get<std::vector<int32_t>>();
    EXPECT_EQ(tok->Encode(text), want) << "text: '" << text << "'";
  }
}

INSTANTIATE_TEST_SUITE_P(Models, ClipTokenizerTest, ::testing::Values("sd1", "sd2"));

TEST(ClipTokenizerLoadTest, MissingFolderIsAnError) {
  absl::StatusOr<ClipTokenizer> tok = ClipTokenizer::Load("/nonexistent/tokenizer");
  EXPECT_FALSE(tok.ok());
}

TEST(ClipTokenizerLoadTest, PadTokens) {
  absl::StatusOr<ClipTokenizer> sd1 =
      ClipTokenizer::Load(std::string(kTestdata) + "/sd1/tokenizer");
  absl::StatusOr<ClipTokenizer> sd2 =
      ClipTokenizer::Load(std::string(kTestdata) + "/sd2/tokenizer");
  ASSERT_TRUE(sd1.ok() && sd2.ok());
  EXPECT_EQ(sd1->pad_id(), sd1->eos_id());
  EXPECT_EQ(sd2->pad_id(), 0);  // "!" is the first byte symbol.
}

}  // namespace
}  // namespace sd
}  // namespace oxinfer
