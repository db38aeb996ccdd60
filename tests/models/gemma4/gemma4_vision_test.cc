// Image input against transformers' Gemma4ForConditionalGeneration
// (testdata/media/vision_tiny, made by
// tools/reference/gemma4_media/make_vision_fixtures.py): encode_media's soft
// tokens within 1e-4 of embed_vision(vision_tower(pixels)), the prompt's last
// logits within 1e-4 with those rows in place of the image tokens, 32 greedy
// tokens identical; on every backend spec.
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

constexpr int32_t kImage = 260, kBoi = 261, kEoi = 262;  // the fixture's config.json

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
bool Encode(const Model& m, const uint8_t* pixels, int w, int h, int budget, Encoded* out,
            std::string* error) {
  oxi_media_input in;
  std::memset(&in, 0, sizeof in);
  in.struct_size = sizeof in;
  in.kind = OXI_MEDIA_IMAGE;
  in.image.struct_size = sizeof(oxi_image);
  in.image.width = w;
  in.image.height = h;
  in.image.channels = 3;
  in.image.pixels = const_cast<uint8_t*>(pixels);
  in.max_soft_tokens = budget;
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

TEST(Gemma4Vision, MatchesTransformers) {
  auto ref = SafetensorsFile::Open(Dir() + "/reference.safetensors");
  ASSERT_TRUE(ref.ok()) << ref.status();
  ASSERT_NE(ModelIface()->encode_media, nullptr);
  const int n_cases = 4;
  for (const auto& be : Backends()) {
    SCOPED_TRACE("backend " + be->name());
    Model m(Dir(), be->iface());
    ASSERT_TRUE(m.ok());
    ASSERT_TRUE(m.info().capabilities & OXI_MODEL_IMAGE_INPUT);
    const int V = m.vocab(), H = m.info().hidden_size;
    const int budgets[n_cases] = {70, 140, 70, 280};
    for (int c = 0; c < n_cases; ++c) {
      SCOPED_TRACE("case " + std::to_string(c));
      const std::string p = "case" + std::to_string(c);
      const std::vector<int32_t> tokens = Read<int32_t>(*ref, p + ".tokens");
      const std::vector<float> soft = Read<float>(*ref, p + ".soft");
      const std::vector<float> logits = Read<float>(*ref, p + ".logits");
      const std::vector<int32_t> greedy = Read<int32_t>(*ref, p + ".greedy");
      // Every image of the prompt, in order: its rows go where its tokens are.
      std::vector<float> rows(tokens.size() * H, 0.0f);
      std::vector<uint8_t> mask(tokens.size(), 0);
      std::vector<float> got_soft;
      size_t at = 0;
      for (int j = 0; ref->Find(p + ".image" + std::to_string(j)) != nullptr; ++j) {
        auto img = ref->GetTensor(p + ".image" + std::to_string(j));
        ASSERT_TRUE(img.ok());
        Encoded e;
        std::string error;
        ASSERT_TRUE(Encode(m, img->data_as<uint8_t>(), static_cast<int>(img->shape()[1]),
                           static_cast<int>(img->shape()[0]), budgets[c], &e, &error))
            << error;
        ASSERT_GE(e.tokens.size(), 3u);
        EXPECT_EQ(e.tokens.front(), kBoi);
        EXPECT_EQ(e.tokens.back(), kEoi);
        while (at < tokens.size() && tokens[at] != kBoi) ++at;
        ASSERT_LE(at + e.tokens.size(), tokens.size());
        for (size_t i = 0; i < e.tokens.size(); ++i) {
          ASSERT_EQ(e.tokens[i], tokens[at + i]) << i;
          mask[at + i] = e.mask[i];
          if (e.mask[i]) {
            EXPECT_EQ(e.tokens[i], kImage);
            got_soft.insert(got_soft.end(), &e.rows[i * H], &e.rows[(i + 1) * H]);
            std::copy(&e.rows[i * H], &e.rows[(i + 1) * H], &rows[(at + i) * H]);
          }
        }
        at += e.tokens.size();
      }
      ASSERT_EQ(got_soft.size(), soft.size());
      const float soft_diff =
          MaxAbsDiff(got_soft.data(), soft.data(), static_cast<int64_t>(soft.size()));
      EXPECT_LE(soft_diff, kTolerance) << "soft tokens";
      // The prompt with the rows in place, then greedy decoding token by token.
      std::vector<float> out(V);
      oxi_batch_entry e = TokenEntry(0, tokens.data(), static_cast<int64_t>(tokens.size()),
                                     OXI_LOGITS_LAST, out.data());
      e.embeddings = rows.data();
      e.embedding_mask = mask.data();
      std::string error;
      ASSERT_EQ(m.Forward({e}, &error), OXI_OK) << error;
      const float logit_diff = MaxAbsDiff(out.data(), logits.data(), V);
      EXPECT_LE(logit_diff, kTolerance) << "last logits";
      std::printf("%s case %d: soft tokens max |diff| %.3g, last logits %.3g\n",
                  be->name().c_str(), c, soft_diff, logit_diff);
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

TEST(Gemma4Vision, RefusesBadImages) {
  for (const auto& be : Backends()) {
    Model m(Dir(), be->iface());
    ASSERT_TRUE(m.ok());
    std::vector<uint8_t> px(3 * 8 * 8, 100);
    Encoded e;
    std::string error;
    EXPECT_FALSE(Encode(m, px.data(), 8, 8, 100, &e, &error));  // budget not allowed
    EXPECT_NE(error.find("max_soft_tokens 100"), std::string::npos) << error;
    EXPECT_FALSE(Encode(m, px.data(), 0, 8, 70, &e, &error));
    EXPECT_TRUE(Encode(m, px.data(), 8, 8, 70, &e, &error)) << error;
    break;  // the checks are the plugin's, not the backend's
  }
}

}  // namespace
}  // namespace gemma4_test
}  // namespace oxinfer
