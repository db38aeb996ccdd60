// Loads liboxinfer_png.so through the registry, as the host does, and checks
// round trips and the errors on malformed input.
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "oxinfer/plugin_abi.h"
#include "tests/support/test_backends.h"

namespace oxinfer {
namespace {

constexpr char kPlugin[] = "plugins/codecs/png/liboxinfer_png.so";

class PngCodecTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto iface = testing::LoadPluginIface(testing::Runfile(kPlugin), OXI_PLUGIN_CODEC);
    ASSERT_TRUE(iface.ok()) << iface.status();
    codec_ = static_cast<const oxi_codec_iface*>(*iface);
  }

  std::vector<uint8_t> Encode(const oxi_image& img) {
    uint8_t* out = nullptr;
    size_t n = 0;
    char err[256] = {0};
    EXPECT_EQ(codec_->encode_image(&img, "png", &out, &n, err, sizeof(err)), OXI_OK) << err;
    std::vector<uint8_t> bytes(out, out + n);
    codec_->free_buffer(out);
    return bytes;
  }

  // Decodes; returns the status and the error text.
  int32_t Decode(const std::vector<uint8_t>& bytes, oxi_image* img, std::string* error) {
    char err[512] = {0};
    img->struct_size = sizeof(oxi_image);
    int32_t s = codec_->decode_image(bytes.data(), bytes.size(), img, err, sizeof(err));
    *error = err;
    return s;
  }

  static const oxi_codec_iface* codec_;
};

const oxi_codec_iface* PngCodecTest::codec_ = nullptr;

std::vector<uint8_t> ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<uint8_t> RandomPixels(int w, int h, int c, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> p(static_cast<size_t>(w) * h * c);
  for (auto& v : p) v = static_cast<uint8_t>(rng());
  return p;
}

TEST_F(PngCodecTest, DescribesItself) {
  EXPECT_STREQ(codec_->formats, "png");
  const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  EXPECT_GT(codec_->sniff(sig, 8), 0);
  EXPECT_EQ(codec_->sniff(sig, 4), 0);
  const uint8_t jpeg[8] = {0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 'J', 'F'};
  EXPECT_EQ(codec_->sniff(jpeg, 8), 0);
}

TEST_F(PngCodecTest, RoundTripsEveryChannelCountAndOddSizes) {
  const int sizes[][2] = {{1, 1}, {3, 5}, {17, 9}, {64, 1}, {1, 33}, {127, 61}};
  uint32_t seed = 1;
  for (int c : {1, 3, 4}) {
    for (const auto& wh : sizes) {
      SCOPED_TRACE(::testing::Message() << wh[0] << "x" << wh[1] << "x" << c);
      std::vector<uint8_t> pixels = RandomPixels(wh[0], wh[1], c, seed++);
      oxi_image img = {sizeof(oxi_image), wh[0], wh[1], c, pixels.data()};
      std::vector<uint8_t> bytes = Encode(img);
      ASSERT_GT(bytes.size(), 8u);
      EXPECT_GT(codec_->sniff(bytes.data(), bytes.size()), 0);
      oxi_image back{};
      std::string err;
      ASSERT_EQ(Decode(bytes, &back, &err), OXI_OK) << err;
      EXPECT_EQ(back.width, wh[0]);
      EXPECT_EQ(back.height, wh[1]);
      EXPECT_EQ(back.channels, c);
      ASSERT_NE(back.pixels, nullptr);
      EXPECT_EQ(std::memcmp(back.pixels, pixels.data(), pixels.size()), 0);
      codec_->free_image(&back);
      EXPECT_EQ(back.pixels, nullptr);
    }
  }
}

TEST_F(PngCodecTest, RefusesBadImagesToEncode) {
  uint8_t px[4] = {0};
  char err[256] = {0};
  uint8_t* out = nullptr;
  size_t n = 0;
  oxi_image two = {sizeof(oxi_image), 1, 1, 2, px};
  EXPECT_EQ(codec_->encode_image(&two, "png", &out, &n, err, sizeof(err)), OXI_INVALID_ARGUMENT);
  EXPECT_NE(std::string(err).find("channels"), std::string::npos) << err;
  oxi_image empty = {sizeof(oxi_image), 0, 5, 3, px};
  EXPECT_EQ(codec_->encode_image(&empty, "png", &out, &n, err, sizeof(err)), OXI_INVALID_ARGUMENT);
  oxi_image ok = {sizeof(oxi_image), 1, 1, 1, px};
  EXPECT_EQ(codec_->encode_image(&ok, "jpeg", &out, &n, err, sizeof(err)), OXI_INVALID_ARGUMENT);
  EXPECT_EQ(out, nullptr);
}

class PngMalformedTest : public PngCodecTest {
 protected:
  std::vector<uint8_t> Valid() {
    std::vector<uint8_t> pixels = RandomPixels(23, 19, 3, 42);
    oxi_image img = {sizeof(oxi_image), 23, 19, 3, pixels.data()};
    return Encode(img);
  }
  // Offset of the first byte of chunk `type`'s length field.
  static size_t FindChunk(const std::vector<uint8_t>& b, const char* type) {
    size_t pos = 8;
    while (pos + 8 <= b.size()) {
      uint32_t len = (uint32_t{b[pos]} << 24) | (uint32_t{b[pos + 1]} << 16) |
                     (uint32_t{b[pos + 2]} << 8) | b[pos + 3];
      if (std::memcmp(&b[pos + 4], type, 4) == 0) return pos;
      pos += 12 + len;
    }
    return std::string::npos;
  }
};

TEST_F(PngMalformedTest, NotAPng) {
  std::vector<uint8_t> bytes = {'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd'};
  oxi_image img{};
  std::string err;
  EXPECT_EQ(Decode(bytes, &img, &err), OXI_INVALID_ARGUMENT);
  EXPECT_NE(err.find("not a PNG"), std::string::npos) << err;
  EXPECT_EQ(Decode({}, &img, &err), OXI_INVALID_ARGUMENT);
}

TEST_F(PngMalformedTest, EveryTruncationIsAnError) {
  std::vector<uint8_t> valid = Valid();
  // Every prefix length, including cuts inside the signature, IHDR, IDAT and IEND.
  for (size_t n = 0; n < valid.size(); ++n) {
    std::vector<uint8_t> cut(valid.begin(), valid.begin() + n);
    oxi_image img{};
    std::string err;
    int32_t s = Decode(cut, &img, &err);
    ASSERT_NE(s, OXI_OK) << "prefix of " << n << " bytes decoded";
    EXPECT_FALSE(err.empty());
    if (n >= 8 && n < valid.size() - 12) {
      EXPECT_NE(err.find("truncated"), std::string::npos) << n << ": " << err;
    }
  }
}

TEST_F(PngMalformedTest, CorruptCrcIsAnError) {
  for (const char* chunk : {"IHDR", "IDAT", "IEND"}) {
    std::vector<uint8_t> bytes = Valid();
    size_t pos = FindChunk(bytes, chunk);
    ASSERT_NE(pos, std::string::npos) << chunk;
    uint32_t len = (uint32_t{bytes[pos]} << 24) | (uint32_t{bytes[pos + 1]} << 16) |
                   (uint32_t{bytes[pos + 2]} << 8) | bytes[pos + 3];
    bytes[pos + 8 + len] ^= 0x5a;  // First CRC byte.
    oxi_image img{};
    std::string err;
    EXPECT_NE(Decode(bytes, &img, &err), OXI_OK) << chunk;
    EXPECT_NE(err.find("CRC"), std::string::npos) << chunk << ": " << err;
  }
}

TEST_F(PngMalformedTest, RandomCorruptionNeverCrashes) {
  std::vector<uint8_t> valid = Valid();
  std::mt19937 rng(7);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<uint8_t> bytes = valid;
    int flips = 1 + rng() % 4;
    for (int i = 0; i < flips; ++i) bytes[8 + rng() % (bytes.size() - 8)] = rng();
    oxi_image img{};
    std::string err;
    if (Decode(bytes, &img, &err) == OXI_OK) {
      codec_->free_image(&img);
    } else {
      EXPECT_FALSE(err.empty());
    }
  }
}

}  // namespace
}  // namespace oxinfer

namespace oxinfer {
namespace {

// Files written by other encoders (tools/reference/sd/make_png_cases.py):
// palette, gray+alpha, 16-bit, 1-bit, interlaced, palette with tRNS.
TEST_F(PngCodecTest, DecodesOtherLayoutsTo8Bit) {
  const std::string dir = "tests/codecs/testdata/";
  struct Case {
    const char* name;
    int w, h, c;
  };
  const Case cases[] = {
      {"rgb_interlaced", 11, 13, 3}, {"palette", 11, 13, 3}, {"gray_alpha", 9, 7, 4},
      {"gray16", 6, 5, 1},           {"rgba16", 3, 4, 4},    {"gray1", 10, 9, 1},
      {"palette_trns", 5, 4, 4},     {"gray8", 17, 3, 1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<uint8_t> png = ReadAll(dir + c.name + ".png");
    std::vector<uint8_t> want = ReadAll(dir + c.name + ".expected");
    ASSERT_FALSE(png.empty());
    ASSERT_EQ(want.size(), static_cast<size_t>(c.w * c.h * c.c));
    oxi_image img{};
    std::string err;
    ASSERT_EQ(Decode(png, &img, &err), OXI_OK) << err;
    EXPECT_EQ(img.width, c.w);
    EXPECT_EQ(img.height, c.h);
    ASSERT_EQ(img.channels, c.c);
    EXPECT_EQ(std::vector<uint8_t>(img.pixels, img.pixels + want.size()), want);
    codec_->free_image(&img);
  }
}

}  // namespace
}  // namespace oxinfer
