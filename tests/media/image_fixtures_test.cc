// Every image fixture (tools/reference/codecs/make_fixtures.py) decodes, through
// the codec plugin that sniffing picks, to exactly the pixels transformers'
// load_image gives with Pillow.
#include <string>

#include "core/media/media.h"
#include "gtest/gtest.h"
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

}  // namespace
}  // namespace oxinfer
