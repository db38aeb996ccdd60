// --save-quantized for Gemma 4: the weights the plugin reports while it
// opens a fixture at q8_0 / q4_0 (record_weight, ABI 2.3) are written as a
// folder (core/quantized_writer.h) and opened again with the same backend.
// The logits of every reference prompt's prefill and of greedy decode steps
// are bit-identical to quantising at load; the folder holds the matrices in
// the layout the backend prefers (the _x8 forms on the SIMD CPUs).
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "core/host_services.h"
#include "gtest/gtest.h"
#include "oxinfer/sdk/weights.hpp"
#include "tests/models/gemma4/gemma4_test_util.h"
#include "tests/support/quantized_save.h"

namespace oxinfer {
namespace gemma4_test {
namespace {

constexpr int kSteps = 8;  // greedy steps after each prompt

struct Case {
  const char* fixture;
  oxi_dtype dtype;
};

// The soft-token rows of a 48 x 40 gradient image (encode_media).
std::vector<float> ImageRows(const Model& m) {
  std::vector<uint8_t> pixels(48 * 40 * 3);
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<uint8_t>(i * 7 % 251);
  oxi_media_input in = {};
  in.struct_size = sizeof in;
  in.kind = OXI_MEDIA_IMAGE;
  in.image.struct_size = sizeof(oxi_image);
  in.image.width = 48;
  in.image.height = 40;
  in.image.channels = 3;
  in.image.pixels = pixels.data();
  oxi_media_output o = {};
  o.struct_size = sizeof o;
  char error[1024] = {};
  EXPECT_EQ(ModelIface()->encode_media(m.raw(), &in, &o, error, sizeof error), OXI_OK) << error;
  std::vector<float> rows(o.embeddings, o.embeddings + o.n_tokens * o.hidden_size);
  ModelIface()->free_media(&o);
  return rows;
}

// The fixture's reference prompts; a made-up one where it has none.
std::vector<std::vector<int32_t>> Prompts(const std::string& dir, int vocab) {
  std::vector<std::vector<int32_t>> out;
  auto ref = sdk::Weights::Open(dir + "/reference.safetensors", true, HostServices());
  if (!ref.ok() || !ref->Has("prompt_0.tokens")) return {{2, 17, 5, 99 % vocab, 3}};
  for (const Prompt& p : LoadReference(dir, vocab)) out.push_back(p.tokens);
  return out;
}

class Gemma4Saved : public ::testing::TestWithParam<Case> {};

TEST_P(Gemma4Saved, LogitsAreBitIdenticalToQuantisingAtLoad) {
  const Case c = GetParam();
  for (const auto& be : Backends()) {
    std::string name = std::string(c.fixture) + "_" + oxi_dtype_name(c.dtype);
    std::replace(name.begin(), name.end(), '/', '_');
    oxinfer::testing::QuantizedSave save(name, FixtureDir(c.fixture), c.dtype);
    ASSERT_TRUE(save.status.ok()) << save.status;
    OpenOptions at_load;
    at_load.weight_dtype = c.dtype;
    at_load.record_weight = &oxinfer::testing::QuantizedSave::Record;
    at_load.record_ctx = &save;
    Model a(FixtureDir(c.fixture), be->iface(), at_load);
    ASSERT_TRUE(a.ok());
    ASSERT_TRUE(save.Finish(be->name()).ok());
    OpenOptions saved;
    saved.weight_dtype = c.dtype;  // what the host passes for a saved folder
    Model b(save.out, be->iface(), saved);
    ASSERT_TRUE(b.ok());
    const int V = a.vocab();
    ASSERT_EQ(V, b.vocab());
    if ((a.info().capabilities & OXI_MODEL_IMAGE_INPUT) != 0) {
      const std::vector<float> x = ImageRows(a), y = ImageRows(b);
      ASSERT_FALSE(x.empty());
      ASSERT_EQ(x.size(), y.size());
      EXPECT_EQ(std::memcmp(x.data(), y.data(), x.size() * sizeof(float)), 0) << "image rows";
    }
    for (const std::vector<int32_t>& tokens : Prompts(FixtureDir(c.fixture), V)) {
      oxinfer::testing::ExpectGreedyLogitsIdentical(
          [&](const int32_t* t, size_t n) { return a.Feed(0, t, n); },
          [&](const int32_t* t, size_t n) { return b.Feed(0, t, n); }, tokens, V, kSteps,
          std::string(c.fixture) + " len " + std::to_string(tokens.size()) + ", " + be->name());
      a.Free(0);
      b.Free(0);
    }
    oxinfer::testing::ExpectSavedLayout(save.out, be->iface(), be->name(), c.dtype, c.fixture);
  }
}

// media/vision_tiny: with the vision and audio towers.
INSTANTIATE_TEST_SUITE_P(
    Fixtures, Gemma4Saved,
    ::testing::Values(Case{"e2b_like", OXI_DTYPE_Q8_0}, Case{"e2b_like", OXI_DTYPE_Q4_0},
                      Case{"keqv_sharded", OXI_DTYPE_Q8_0}, Case{"keqv_sharded", OXI_DTYPE_Q4_0},
                      Case{"media/vision_tiny", OXI_DTYPE_Q8_0},
                      Case{"media/vision_tiny", OXI_DTYPE_Q4_0}),
    [](const ::testing::TestParamInfo<Case>& info) {
      std::string n = std::string(info.param.fixture) + "_" + oxi_dtype_name(info.param.dtype);
      std::replace(n.begin(), n.end(), '/', '_');
      return n;
    });

}  // namespace
}  // namespace gemma4_test
}  // namespace oxinfer
