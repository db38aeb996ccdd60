// The CLIP tokenizer against transformers' CLIPTokenizer on the fixture
// vocabularies (sd1 pads with <|endoftext|>, sd2 with "!"), read through the
// host's services as the plugin reads them.
#include "plugins/models/sd/clip_tokenizer.h"

#include "core/host_services.h"
#include "gtest/gtest.h"
#include "oxinfer/sdk/common.hpp"
#include "oxinfer/sdk/json.hpp"
#include "tests/models/sd/fixture.h"

namespace oxinfer {
namespace sd {
namespace {

using testing::Testdata;

class ClipTokenizerTest : public ::testing::TestWithParam<const char*> {};

TEST_P(ClipTokenizerTest, MatchesTransformers) {
  const std::string model = GetParam();
  auto tok = ClipTokenizer::Load(Testdata() + "/" + model + "/tokenizer");
  ASSERT_TRUE(tok.ok()) << tok.status().message();
  EXPECT_EQ(tok->max_length(), 77);
  auto cases = sdk::JsonDoc::FromFile(Testdata() + "/tokenizer_cases_" + model + ".json");
  ASSERT_TRUE(cases.ok()) << cases.status().message();
  ASSERT_GT(cases->root().size(), 10);
  for (const sdk::Json& c : cases->root().Children()) {
    auto text = c["text"].String();
    auto ids = c["ids"].IntList();
    ASSERT_TRUE(text.ok() && ids.ok());
    const std::vector<int32_t> want(ids->begin(), ids->end());
    EXPECT_EQ(tok->Encode(*text), want) << "text: '" << *text << "'";
  }
}

// Non-ASCII prompts (tools/reference/sd/make_clip_unicode_cases.py): NFC,
// Unicode spaces and case mapping, letters / numbers / marks in the split.
TEST_P(ClipTokenizerTest, NonAsciiMatchesTransformers) {
  const std::string model = GetParam();
  auto tok = ClipTokenizer::Load(Testdata() + "/" + model + "/tokenizer");
  ASSERT_TRUE(tok.ok()) << tok.status().message();
  auto doc = sdk::JsonDoc::FromFile(Testdata() + "/tokenizer_unicode_cases_" + model + ".json");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  const sdk::Json cases = doc->root()["cases"];
  ASSERT_GT(cases.size(), 20);
  for (const sdk::Json& c : cases.Children()) {
    auto text = c["text"].String();
    auto ids = c["ids"].IntList();
    ASSERT_TRUE(text.ok() && ids.ok());
    const std::vector<int32_t> want(ids->begin(), ids->end());
    EXPECT_EQ(tok->Encode(*text), want) << "text: '" << *text << "'";
  }
}

INSTANTIATE_TEST_SUITE_P(Models, ClipTokenizerTest, ::testing::Values("sd1", "sd2"));

TEST(ClipTokenizerLoadTest, MissingFolderIsAnErrorNamingIt) {
  auto tok = ClipTokenizer::Load("/nonexistent/tokenizer");
  ASSERT_FALSE(tok.ok());
  EXPECT_NE(tok.status().message().find("/nonexistent/tokenizer"), std::string::npos)
      << tok.status().message();
}

TEST(ClipTokenizerLoadTest, PadTokens) {
  auto sd1 = ClipTokenizer::Load(Testdata() + "/sd1/tokenizer");
  auto sd2 = ClipTokenizer::Load(Testdata() + "/sd2/tokenizer");
  ASSERT_TRUE(sd1.ok() && sd2.ok());
  EXPECT_EQ(sd1->pad_id(), sd1->eos_id());
  EXPECT_EQ(sd2->pad_id(), 0);  // "!" is the first byte symbol.
}

}  // namespace
}  // namespace sd
}  // namespace oxinfer

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  oxinfer::sdk::HostSlot() = oxinfer::HostServices();
  return RUN_ALL_TESTS();
}
