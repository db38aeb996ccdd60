// Every image fixture (tools/reference/codecs/make_fixtures.py) decodes, through
// the codec plugin that sniffing picks, to exactly the pixels transformers'
// load_image gives with Pillow.
#include <string>

#include "core/media/media.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/media/media_test_support.h"

namespace oxinfer {
namespace {

using testing::CodecRegistry;
using testing::FixtureDir;
using testing::ReadBytes;

class ImageFixturesTest : public ::testing::TestWithParam<testing::FixtureCase> {};

TEST_P(ImageFixturesTest, PixelsIdenticalToPillow) {
  const testing::FixtureCase& c = GetParam();
  const std::string dir = FixtureDir("images");
  auto img = media::LoadImage(CodecRegistry(), dir + "/" + c.file);
  ASSERT_TRUE(img.ok()) << img.status();
  ASSERT_EQ(img->width, c.width);
  ASSERT_EQ(img->height, c.height);
  const std::string want = ReadBytes(dir + "/" + c.expected);
  ASSERT_EQ(img->pixels.size(), want.size());
  size_t differ = 0, first = want.size();
  int worst = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const int d = std::abs(int(img->pixels[i]) - int(static_cast<uint8_t>(want[i])));
    if (d != 0 && first == want.size()) first = i;
    differ += d != 0;
    worst = std::max(worst, d);
  }
  EXPECT_EQ(differ, 0u) << c.file << " (" << img->format << ", codec " << img->codec
                        << "): " << differ << " bytes differ, worst by " << worst
                        << ", first at pixel " << first / 3;
}

INSTANTIATE_TEST_SUITE_P(Pillow, ImageFixturesTest,
                         ::testing::ValuesIn(testing::ReadCases("images")),
                         [](const ::testing::TestParamInfo<testing::FixtureCase>& info) {
                           std::string n = info.param.file;
                           for (char& ch : n) {
                             if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return n;
                         });

// Files Pillow refuses (testdata/images/refused.json, with Pillow's error):
// refused here too, with the file named, never decoded into other pixels.
TEST(ImageFixturesRefused, RefusedWherePillowRefuses) {
  const std::string dir = FixtureDir("images");
  const auto doc = nlohmann::json::parse(ReadBytes(dir + "/refused.json"));
  ASSERT_GE(doc.size(), 5u);
  for (const auto& c : doc) {
    const std::string file = c.at("file").get<std::string>();
    auto img = media::LoadImage(CodecRegistry(), dir + "/" + file);
    EXPECT_FALSE(img.ok()) << file << " decoded; Pillow: " << c.at("pillow_error");
    if (!img.ok()) {
      EXPECT_NE(img.status().message().find(file), std::string::npos) << img.status();
    }
  }
}

}  // namespace
}  // namespace oxinfer
