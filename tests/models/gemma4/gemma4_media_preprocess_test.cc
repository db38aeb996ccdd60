// Gemma 4 image and audio preprocessing against transformers' own processor
// (testdata/media/preprocess.*, made by
// tools/reference/gemma4_media/make_preprocess_fixtures.py): resized 8-bit
// values identical, pixel values and log-mel features within 1e-6.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/safetensors.h"
#include "gtest/gtest.h"
#include "oxinfer/sdk/common.hpp"
#include "oxinfer/sdk/json.hpp"
#include "plugins/models/gemma4/gemma4_audio_features.h"
#include "plugins/models/gemma4/gemma4_image_preprocess.h"
#include "tests/support/plugin_host.h"  // the host in the SDK slot (JsonDoc)

namespace oxinfer {
namespace gemma4 {
namespace {

const char kDir[] = "tests/models/gemma4/testdata/media/";

struct Fixture {
  SafetensorsFile file;
  sdk::JsonDoc meta;
};

Fixture& Load() {
  static Fixture* f = [] {
    auto file = SafetensorsFile::Open(std::string(kDir) + "preprocess.safetensors");
    EXPECT_TRUE(file.ok()) << file.status();
    auto meta = sdk::JsonDoc::FromFile(std::string(kDir) + "preprocess.json");
    EXPECT_TRUE(meta.ok()) << meta.status().message();
    return new Fixture{std::move(*file), std::move(*meta)};
  }();
  return *f;
}

Tensor Get(const std::string& name) {
  auto t = Load().file.GetTensor(name);
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? *t : Tensor();
}

int64_t Int(const sdk::Json& j) {
  auto v = j.Int();
  EXPECT_TRUE(v.ok()) << v.status().message();
  return v.ok() ? *v : -1;
}

// The fixture generator's audio: a 32-bit LCG's top 16 bits under a staircase
// envelope, floor-divided as Python does, / 32768 in float32.
std::vector<float> LcgSamples(int64_t n, uint32_t seed) {
  std::vector<float> out(n);
  uint32_t x = seed;
  for (int64_t i = 0; i < n; ++i) {
    x = 1664525u * x + 1013904223u;
    const int64_t v = static_cast<int64_t>(x >> 16) - 32768;
    const int64_t env = (i / 400) % 8 + 1;
    const int64_t prod = v * env;
    const int64_t q = prod >= 0 ? prod / 8 : -((-prod + 7) / 8);  // floor division
    out[i] = static_cast<float>(q) / 32768.0f;
  }
  return out;
}

TEST(Gemma4MediaPreprocess, ImagesMatchTransformers) {
  const sdk::Json images = Load().meta.root()["images"];
  ASSERT_GT(images.size(), 0);
  for (int64_t i = 0; i < images.size(); ++i) {
    const sdk::Json c = images[i];
    SCOPED_TRACE(c["name"].String().value());
    ImageProcessorConfig cfg;
    cfg.patch_size = static_cast<int>(Int(c["patch_size"]));
    cfg.pooling_kernel_size = static_cast<int>(Int(c["pooling_kernel_size"]));
    const std::string p = "img" + std::to_string(i);
    const Tensor src = Get(p + ".source");
    ImageView view{src.data_as<uint8_t>(), src.shape()[1], src.shape()[0],
                   static_cast<int>(src.shape()[2])};
    auto out = PreprocessImage(view, cfg, static_cast<int>(Int(c["max_soft_tokens"])));
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_EQ(out->height, Int(c["resized_height"]));
    EXPECT_EQ(out->width, Int(c["resized_width"]));
    EXPECT_EQ(out->n_soft_tokens, Int(c["n_soft_tokens"]));
    const Tensor patches = Get(p + ".patches");
    const Tensor positions = Get(p + ".positions");
    ASSERT_EQ(out->grid_h * out->grid_w, patches.shape()[0]);
    ASSERT_EQ(out->patch_dim, patches.shape()[1]);
    const uint8_t* want = patches.data_as<uint8_t>();
    const float factor = static_cast<float>(cfg.rescale_factor);
    int64_t off_by_one = 0, worse = 0;
    double max_diff = 0;
    for (int64_t k = 0; k < patches.numel(); ++k) {
      const float got = out->pixel_values[k];
      const int d = static_cast<int>(std::lround(got / factor)) - want[k];
      off_by_one += d == 1 || d == -1;
      worse += d > 1 || d < -1;
      max_diff = std::max(max_diff, std::fabs(static_cast<double>(got) - want[k] * factor));
    }
    EXPECT_EQ(off_by_one, 0);
    EXPECT_EQ(worse, 0);
    EXPECT_LE(max_diff, 1e-6);
    const int32_t* pos = positions.data_as<int32_t>();
    for (int64_t k = 0; k < positions.numel(); ++k) ASSERT_EQ(out->positions[k], pos[k]) << k;
    if (i == 0) {  // the float pixel values themselves (the first patches)
      const Tensor pv = Get(p + ".pixel_values");
      const float* w = pv.data_as<float>();
      double d = 0;
      for (int64_t k = 0; k < pv.numel(); ++k) {
        d = std::max(d, std::fabs(static_cast<double>(out->pixel_values[k]) - w[k]));
      }
      EXPECT_LE(d, 1e-6);
    }
  }
}

TEST(Gemma4MediaPreprocess, LogMelMatchesTransformers) {
  const sdk::Json audio = Load().meta.root()["audio"];
  ASSERT_GT(audio.size(), 0);
  for (int64_t i = 0; i < audio.size(); ++i) {
    const sdk::Json c = audio[i];
    SCOPED_TRACE(c["name"].String().value());
    AudioFeatureConfig cfg;
    cfg.feature_size = static_cast<int>(Int(c["feature_size"]));
    cfg.min_frequency = c["min_frequency"].Number().value();
    cfg.max_frequency = c["max_frequency"].Number().value();
    const std::vector<float> wave =
        LcgSamples(Int(c["samples"]), static_cast<uint32_t>(Int(c["seed"])));
    auto out = ExtractLogMel(wave.data(), static_cast<int64_t>(wave.size()), cfg);
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_EQ(out->n_frames, Int(c["n_frames"]));
    EXPECT_EQ(out->n_valid, Int(c["n_valid"]));
    const std::string p = "aud" + std::to_string(i);
    const Tensor mask = Get(p + ".mask");
    ASSERT_EQ(mask.numel(), out->n_frames);
    for (int64_t f = 0; f < out->n_frames; ++f) {
      ASSERT_EQ(out->mask[f], mask.data_as<uint8_t>()[f]) << f;
    }
    const Tensor rows = Get(p + ".rows");
    const Tensor feats = Get(p + ".features");
    double max_diff = 0;
    for (int64_t r = 0; r < rows.numel(); ++r) {
      const int64_t f = rows.data_as<int32_t>()[r];
      ASSERT_LT(f, out->n_frames);
      for (int m = 0; m < cfg.feature_size; ++m) {
        const double d = std::fabs(static_cast<double>(out->features[f * cfg.feature_size + m]) -
                                   feats.data_as<float>()[r * cfg.feature_size + m]);
        max_diff = std::max(max_diff, d);
      }
    }
    EXPECT_LE(max_diff, 1e-6);
    std::printf("%s: max |diff| %.3g over %lld frames\n", c["name"].String().value().c_str(),
                max_diff, static_cast<long long>(rows.numel()));
  }
}

TEST(Gemma4MediaPreprocess, RefusesBadInput) {
  ImageProcessorConfig cfg;
  std::vector<uint8_t> px(3 * 4 * 4, 0);
  ImageView view{px.data(), 4, 4, 3};
  EXPECT_FALSE(PreprocessImage(view, cfg, 100).ok());  // budget not allowed
  EXPECT_TRUE(PreprocessImage(view, cfg, 70).ok());
  view.channels = 5;
  EXPECT_FALSE(PreprocessImage(view, cfg, 70).ok());
  view.channels = 3;
  view.width = 0;
  EXPECT_FALSE(PreprocessImage(view, cfg, 70).ok());
  AudioFeatureConfig acfg;
  std::vector<float> wave(10, 0.f);
  EXPECT_FALSE(ExtractLogMel(wave.data(), 10, acfg).ok());  // no full frame
  EXPECT_FALSE(ExtractLogMel(nullptr, 100, acfg).ok());
}

TEST(Gemma4MediaPreprocess, PublishedProcessorConfig) {
  auto doc = sdk::JsonDoc::FromFile(std::string(kDir) + "processor_config.json");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  auto img = ParseImageProcessorConfig(doc->root()["image_processor"]);
  ASSERT_TRUE(img.ok()) << img.status().message();
  EXPECT_EQ(img->patch_size, 16);
  EXPECT_EQ(img->pooling_kernel_size, 3);
  EXPECT_EQ(img->max_soft_tokens, 280);
  EXPECT_FALSE(img->do_normalize);
  auto aud = ParseAudioFeatureConfig(doc->root()["feature_extractor"]);
  ASSERT_TRUE(aud.ok()) << aud.status().message();
  EXPECT_EQ(aud->feature_size, 128);
  EXPECT_EQ(aud->fft_length, 512);
  EXPECT_EQ(aud->frame_length, 320);
  EXPECT_EQ(aud->hop_length, 160);
}

}  // namespace
}  // namespace gemma4
}  // namespace oxinfer
