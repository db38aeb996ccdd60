// Every audio fixture (tools/reference/codecs/make_fixtures.py) decodes,
// through the codec plugin that sniffing picks (libsndfile for what
// soundfile reads, FFmpeg for the rest), down-mixed and resampled to 16 kHz,
// to transformers' load_audio(path, 16000, backend="soundfile") samples
// within 1e-6 (for FFmpeg's formats: the same steps on FFmpeg's decode).
#include <cmath>
#include <cstring>
#include <string>

#include "core/media/media.h"
#include "gtest/gtest.h"
#include "tests/media/media_test_support.h"

namespace oxinfer {
namespace {

using testing::CodecRegistry;
using testing::FixtureDir;
using testing::ReadBytes;

constexpr double kTolerance = 1e-6;

class AudioFixturesTest : public ::testing::TestWithParam<testing::FixtureCase> {};

TEST_P(AudioFixturesTest, SamplesMatchTheReference) {
  const testing::FixtureCase& c = GetParam();
  const std::string dir = FixtureDir("audio");
  auto audio = media::LoadAudio(CodecRegistry(), dir + "/" + c.file, 16000);
  ASSERT_TRUE(audio.ok()) << audio.status();
  EXPECT_EQ(audio->codec, c.codec) << audio->format;
  EXPECT_EQ(audio->source_rate, c.rate);
  EXPECT_EQ(audio->source_channels, c.channels);
  const std::string raw = ReadBytes(dir + "/" + c.expected);
  ASSERT_EQ(raw.size() % 4, 0u);
  std::vector<float> want(raw.size() / 4);
  std::memcpy(want.data(), raw.data(), raw.size());
  ASSERT_EQ(audio->samples.size(), want.size()) << c.file << " (" << audio->format << ")";
  double worst = 0;
  size_t at = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const double d = std::fabs(double(audio->samples[i]) - want[i]);
    if (d > worst) {
      worst = d;
      at = i;
    }
  }
  EXPECT_LE(worst, kTolerance) << c.file << " (" << audio->format << ", codec " << audio->codec
                               << "): worst difference at sample " << at;
  RecordProperty("max_abs_diff", std::to_string(worst));
}

INSTANTIATE_TEST_SUITE_P(Reference, AudioFixturesTest,
                         ::testing::ValuesIn(testing::ReadCases("audio")),
                         [](const ::testing::TestParamInfo<testing::FixtureCase>& info) {
                           std::string n = info.param.file;
                           for (char& ch : n) {
                             if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return n;
                         });

}  // namespace
}  // namespace oxinfer
