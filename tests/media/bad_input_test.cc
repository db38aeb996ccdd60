// Hostile and broken media: every fixture cut short is refused with an error
// naming the file and the codec; decompression bombs (headers declaring
// 100000x100000 pixels or thousands of hours) are refused by the limits,
// before anything is allocated, and the limits are options.
#include <string>

#include "absl/strings/match.h"
#include "core/media/media.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/media/media_test_support.h"
#include "tests/support/test_backends.h"

namespace oxinfer {
namespace {

using testing::CodecRegistry;
using testing::FixtureDir;
using ::testing::HasSubstr;
using testing::ReadBytes;

// Where a cut is sure to land inside what the decoder needs: half the file,
// except for an animated GIF, whose first frame (all that is decoded) may
// end before the middle.
size_t CutPoint(const std::string& file, size_t size) {
  return absl::StrContains(file, "gif_animated") ? size / 4 : size / 2;
}

TEST(BadInputTest, TruncatedImagesAreRefusedNamingFileAndCodec) {
  for (const auto& c : testing::ReadCases("images")) {
    SCOPED_TRACE(c.file);
    const std::string bytes = ReadBytes(FixtureDir("images") + "/" + c.file);
    for (size_t cut : {CutPoint(c.file, bytes.size()), size_t{12}}) {
      auto img = media::DecodeImage(CodecRegistry(), bytes.substr(0, cut), c.file);
      ASSERT_FALSE(img.ok()) << "cut at " << cut << " of " << bytes.size();
      EXPECT_THAT(std::string(img.status().message()), HasSubstr(c.file + ": "));
      if (cut > 12) {
        EXPECT_THAT(std::string(img.status().message()), HasSubstr("codec '")) << img.status();
      }
    }
  }
}

TEST(BadInputTest, TruncatedAudioIsRefusedNamingFileAndCodec) {
  for (const auto& c : testing::ReadCases("audio")) {
    SCOPED_TRACE(c.file);
    const std::string bytes = ReadBytes(FixtureDir("audio") + "/" + c.file);
    auto audio = media::DecodeAudio(CodecRegistry(), bytes.substr(0, bytes.size() / 2), c.file);
    ASSERT_FALSE(audio.ok()) << "half of " << bytes.size() << " bytes decoded";
    EXPECT_THAT(std::string(audio.status().message()),
                HasSubstr(c.file + ": codec '" + c.codec + "'"));
  }
}

TEST(BadInputTest, UnknownBytesNameTheFileAndTheirStart) {
  auto img = media::DecodeImage(CodecRegistry(), "not an image at all", "x.png");
  ASSERT_FALSE(img.ok());
  EXPECT_THAT(std::string(img.status().message()),
              HasSubstr("x.png: no codec plugin recognises this as an image file (first bytes "
                        "6e 6f 74 20 61 6e 20 69 (not an i)"));
  auto empty = media::DecodeAudio(CodecRegistry(), "", "empty.wav");
  ASSERT_FALSE(empty.ok());
  EXPECT_THAT(std::string(empty.status().message()), HasSubstr("empty.wav: "));
}

// The bombs of the fuzz seed corpora (tools/reference/codecs/make_corpus.py).
TEST(BadInputTest, ImageBombsAreRefusedByTheLimit) {
  for (const char* codec : {"png", "jpeg", "gif", "bmp", "webp"}) {
    SCOPED_TRACE(codec);
    const std::string name = std::string("bad_bomb_") + codec;
    const std::string bytes =
        ReadBytes(testing::Runfile(std::string("fuzz/corpus/codec_") + codec + "/" + name));
    ASSERT_LT(bytes.size(), 2000u);
    auto img = media::DecodeImage(CodecRegistry(), bytes, name);
    ASSERT_FALSE(img.ok());
    EXPECT_EQ(img.status().code(), absl::StatusCode::kResourceExhausted) << img.status();
    EXPECT_THAT(std::string(img.status().message()), HasSubstr("more than the limit of 178956970"));
    EXPECT_THAT(std::string(img.status().message()), HasSubstr("--max-image-pixels"));
  }
}

TEST(BadInputTest, AudioBombIsRefusedByTheLimit) {
  const std::string bytes =
      ReadBytes(testing::Runfile("fuzz/corpus/codec_sndfile/bad_bomb_sndfile"));
  auto audio = media::DecodeAudio(CodecRegistry(), bytes, "bomb.flac");
  ASSERT_FALSE(audio.ok());
  EXPECT_EQ(audio.status().code(), absl::StatusCode::kResourceExhausted) << audio.status();
  EXPECT_THAT(std::string(audio.status().message()),
              HasSubstr("bomb.flac: codec 'sndfile' cannot decode it: flac"));
  EXPECT_THAT(std::string(audio.status().message()), HasSubstr("--max-audio-seconds"));
}

TEST(BadInputTest, LimitsAreOptions) {
  const std::string image = FixtureDir("images") + "/png_rgb8.png";  // 23x17 = 391 pixels
  media::DecodeOptions small;
  small.max_pixels = 390;
  EXPECT_EQ(media::LoadImage(CodecRegistry(), image, small).status().code(),
            absl::StatusCode::kResourceExhausted);
  small.max_pixels = 391;
  EXPECT_TRUE(media::LoadImage(CodecRegistry(), image, small).ok());

  for (const char* file : {"wav_pcm16_stereo_44k.wav", "aac_stereo_44k.m4a"}) {
    SCOPED_TRACE(file);
    const std::string audio = FixtureDir("audio") + "/" + file;  // 0.1 s
    media::DecodeOptions shorter;
    shorter.max_audio_seconds = 0.05;
    auto refused = media::LoadAudio(CodecRegistry(), audio, 16000, shorter);
    EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted) << refused.status();
    shorter.max_audio_seconds = 1;
    EXPECT_TRUE(media::LoadAudio(CodecRegistry(), audio, 16000, shorter).ok());
  }
}

}  // namespace
}  // namespace oxinfer
