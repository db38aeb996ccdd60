// Audio input against transformers' Gemma4ForConditionalGeneration
// (testdata/media/vision_tiny, both towers, made by
// tools/reference/gemma4_media/make_vision_fixtures.py, audio_reference.*):
// encode_media's soft tokens within 1e-4 of embed_audio(audio_tower(features))
// for clips shorter than a chunk, of many chunks and past the 30 s cap, alone,
// two in a prompt and after an image; the prompt's last logits within 1e-4
// with those rows in place, 32 greedy tokens identical; on every backend spec.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/safetensors.h"
#include "gtest/gtest.h"
#include "tests/models/gemma4/gemma4_test_util.h"

namespace oxinfer {
namespace gemma4_test {
namespace {

// The fixture's config.json.
constexpr int32_t kImage = 260, kBoi = 261, kAudio = 263, kBoa = 264, kEoa = 265;

std::string Dir() { return FixtureDir("media/vision_tiny"); }

template <typename T>
std::vector<T> Read(const SafetensorsFile& f, const std::string& name) {
  auto t = f.GetTensor(name);
  EXPECT_TRUE(t.ok()) << t.status();
  if (!t.ok()) return {};
  const T* p = t->data_as<T>();
  return std::vector<T>(p, p + t->numel());
}

struct Encoded {
  std::vector<int32_t> tokens;
  std::vector<uint8_t> mask;
  std::vector<float> rows;
};

// encode_media through the ABI, as a host calls it.
bool Encode(const Model& m, const oxi_media_input& in, Encoded* out, std::string* error) {
  oxi_media_output o;
  std::memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  char buf[1024] = {};
  const int32_t rc = ModelIface()->encode_media(m.raw(), &in, &o, buf, sizeof buf);
  *error = buf;
  if (rc != OXI_OK) return false;
  out->tokens.assign(o.tokens, o.tokens + o.n_tokens);
  out->mask.assign(o.embedding_mask, o.embedding_mask + o.n_tokens);
  out->rows.assign(o.embeddings, o.embeddings + o.n_tokens * o.hidden_size);
  ModelIface()->free_media(&o);
  return true;
}

oxi_media_input AudioInput(const std::vector<float>& samples, int32_t rate = 16000) {
  oxi_media_input in;
  std::memset(&in, 0, sizeof in);
  in.struct_size = sizeof in;
  in.kind = OXI_MEDIA_AUDIO;
  in.samples = samples.data();
  in.n_samples = static_cast<int64_t>(samples.size());
  in.sample_rate = rate;
  return in;
}

oxi_media_input ImageInput(const uint8_t* pixels, int w, int h) {
  oxi_media_input in;
  std::memset(&in, 0, sizeof in);
  in.struct_size = sizeof in;
  in.kind = OXI_MEDIA_IMAGE;
  in.image.struct_size = sizeof(oxi_image);
  in.image.width = w;
  in.image.height = h;
  in.image.channels = 3;
  in.image.pixels = const_cast<uint8_t*>(pixels);
  return in;
}

struct Clip {
  int64_t samples;
  uint32_t seed;
};

// As make_vision_fixtures.py's audio_reference() cases.
const std::vector<std::vector<Clip>>& Cases() {
  static const auto* cases = new std::vector<std::vector<Clip>>{
      {{1600, 21}}, {{21920, 22}}, {{496000, 23}}, {{40000, 24}}, {{5000, 25}, {9000, 26}}};
  return *cases;
}

// Places an attachment's tokens at the next `open` token of the prompt from
// *at on; its soft rows go to rows / soft.
void Place(const Encoded& e, const std::vector<int32_t>& tokens, int32_t open, int32_t placeholder,
           int H, size_t* at, std::vector<float>* rows, std::vector<uint8_t>* mask,
           std::vector<float>* soft) {
  ASSERT_GE(e.tokens.size(), 2u);
  EXPECT_EQ(e.tokens.front(), open);
  while (*at < tokens.size() && tokens[*at] != open) ++*at;
  ASSERT_LE(*at + e.tokens.size(), tokens.size());
  for (size_t i = 0; i < e.tokens.size(); ++i) {
    ASSERT_EQ(e.tokens[i], tokens[*at + i]) << i;
    (*mask)[*at + i] = e.mask[i];
    if (e.mask[i]) {
      EXPECT_EQ(e.tokens[i], placeholder);
      soft->insert(soft->end(), &e.rows[i * H], &e.rows[(i + 1) * H]);
      std::copy(&e.rows[i * H], &e.rows[(i + 1) * H], &(*rows)[(*at + i) * H]);
    }
  }
  *at += e.tokens.size();
}

TEST(Gemma4Audio, MatchesTransformers) {
  auto ref = SafetensorsFile::Open(Dir() + "/audio_reference.safetensors");
  ASSERT_TRUE(ref.ok()) << ref.status();
  std::vector<std::vector<float>> clips;
  for (const auto& c : Cases()) {
    for (const Clip& clip : c) clips.push_back(LcgSamples(clip.samples, clip.seed));
  }
  for (const auto& be : Backends()) {
    SCOPED_TRACE("backend " + be->name());
    Model m(Dir(), be->iface());
    ASSERT_TRUE(m.ok());
    ASSERT_TRUE(m.info().capabilities & OXI_MODEL_AUDIO_INPUT);
    const int V = m.vocab(), H = m.info().hidden_size;
    size_t clip_index = 0;
    for (size_t c = 0; c < Cases().size(); ++c) {
      SCOPED_TRACE("case " + std::to_string(c));
      const std::string p = "case" + std::to_string(c);
      const std::vector<int32_t> tokens = Read<int32_t>(*ref, p + ".tokens");
      const std::vector<float> audio_soft = Read<float>(*ref, p + ".audio_soft");
      const std::vector<float> logits = Read<float>(*ref, p + ".logits");
      const std::vector<int32_t> greedy = Read<int32_t>(*ref, p + ".greedy");
      std::vector<float> rows(tokens.size() * H, 0.0f), got_audio, got_image;
      std::vector<uint8_t> mask(tokens.size(), 0);
      size_t at = 0;
      std::string error;
      for (int j = 0; ref->Find(p + ".image" + std::to_string(j)) != nullptr; ++j) {
        auto img = ref->GetTensor(p + ".image" + std::to_string(j));
        ASSERT_TRUE(img.ok());
        Encoded e;
        ASSERT_TRUE(Encode(m,
                           ImageInput(img->data_as<uint8_t>(), static_cast<int>(img->shape()[1]),
                                      static_cast<int>(img->shape()[0])),
                           &e, &error))
            << error;
        Place(e, tokens, kBoi, kImage, H, &at, &rows, &mask, &got_image);
      }
      for (size_t j = 0; j < Cases()[c].size(); ++j) {
        Encoded e;
        ASSERT_TRUE(Encode(m, AudioInput(clips[clip_index + j]), &e, &error)) << error;
        EXPECT_EQ(e.tokens.back(), kEoa);
        Place(e, tokens, kBoa, kAudio, H, &at, &rows, &mask, &got_audio);
      }
      clip_index += Cases()[c].size();
      ASSERT_EQ(got_audio.size(), audio_soft.size());
      const float soft_diff =
          MaxAbsDiff(got_audio.data(), audio_soft.data(), static_cast<int64_t>(audio_soft.size()));
      EXPECT_LE(soft_diff, kTolerance) << "audio soft tokens";
      float image_diff = 0.0f;
      if (!got_image.empty()) {
        const std::vector<float> image_soft = Read<float>(*ref, p + ".image_soft");
        ASSERT_EQ(got_image.size(), image_soft.size());
        image_diff = MaxAbsDiff(got_image.data(), image_soft.data(),
                                static_cast<int64_t>(image_soft.size()));
        EXPECT_LE(image_diff, kTolerance) << "image soft tokens";
      }
      std::vector<float> out(V);
      oxi_batch_entry e = TokenEntry(0, tokens.data(), static_cast<int64_t>(tokens.size()),
                                     OXI_LOGITS_LAST, out.data());
      e.embeddings = rows.data();
      e.embedding_mask = mask.data();
      ASSERT_EQ(m.Forward({e}, &error), OXI_OK) << error;
      const float logit_diff = MaxAbsDiff(out.data(), logits.data(), V);
      EXPECT_LE(logit_diff, kTolerance) << "last logits";
      std::printf(
          "%s case %zu: %zu audio soft tokens max |diff| %.3g, image %.3g, last logits %.3g\n",
          be->name().c_str(), c, audio_soft.size() / H, soft_diff, image_diff, logit_diff);
      std::vector<int32_t> got;
      for (size_t g = 0; g < greedy.size(); ++g) {
        const int32_t t = ArgMax(out.data(), V);
        got.push_back(t);
        out = m.Feed(0, {t});
      }
      EXPECT_EQ(got, greedy);
      m.Free(0);
    }
  }
}

TEST(Gemma4Audio, RefusesBadAudio) {
  for (const auto& be : Backends()) {
    Model m(Dir(), be->iface());
    ASSERT_TRUE(m.ok());
    const std::vector<float> samples = LcgSamples(4000, 1);
    Encoded e;
    std::string error;
    EXPECT_FALSE(Encode(m, AudioInput(samples, 44100), &e, &error));
    EXPECT_NE(error.find("44100 Hz"), std::string::npos) << error;
    const std::vector<float> tiny(10, 0.25f);  // not one feature frame
    EXPECT_FALSE(Encode(m, AudioInput(tiny), &e, &error));
    EXPECT_NE(error.find("too short"), std::string::npos) << error;
    break;  // the checks are the plugin's, not the backend's
  }
}

}  // namespace
}  // namespace gemma4_test
}  // namespace oxinfer
