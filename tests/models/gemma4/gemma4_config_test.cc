// Gemma 4 config parsing on the published configs (testdata/configs/, copied
// from the project's collection of real config.json files) and on the layout
// newer transformers writes (per_layer_config).
#include "plugins/models/gemma4/gemma4_config.h"

#include <string>
#include <utility>

#include "gtest/gtest.h"
#include "oxinfer/sdk/common.hpp"
#include "tests/support/plugin_host.h"

namespace oxinfer {
namespace gemma4 {
namespace {

const char kDir[] = "tests/models/gemma4/testdata/";

std::string Read(const std::string& name) { return oxinfer::testing::ReadTestFile(kDir + name); }

TEST(Gemma4Config, E2B) {
  auto c = ParseGemma4Config(Read("configs/gemma-4-E2B-it.config.json"));
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->num_layers, 35);
  EXPECT_EQ(c->hidden_size, 1536);
  EXPECT_EQ(c->vocab_size, 262144);
  EXPECT_EQ(c->hidden_size_per_layer_input, 256);
  EXPECT_EQ(c->sliding_window, 512);
  EXPECT_DOUBLE_EQ(c->final_logit_softcapping, 30.0);
  // Layers 15..34 are KV-shared: sliding ones read layer 13, full ones layer 14.
  for (int i = 0; i < 35; ++i) {
    const LayerConfig& l = c->layers[i];
    EXPECT_EQ(l.sliding, (i + 1) % 5 != 0) << i;
    EXPECT_EQ(l.head_dim, l.sliding ? 256 : 512) << i;
    EXPECT_EQ(l.num_kv_heads, 1) << i;
    EXPECT_FALSE(l.k_eq_v) << i;
    EXPECT_EQ(l.kv_shared, i >= 15) << i;
    EXPECT_EQ(l.kv_source, i < 15 ? i : (l.sliding ? 13 : 14)) << i;
    EXPECT_EQ(l.intermediate_size, i >= 15 ? 12288 : 6144) << i;
  }
  // Proportional RoPE on global layers: 64 of 256 frequencies rotate.
  std::vector<float> inv = RopeInvFreq(c->rope_full, 512);
  ASSERT_EQ(inv.size(), 256u);
  EXPECT_FLOAT_EQ(inv[0], 1.0f);
  EXPECT_GT(inv[63], 0.0f);
  EXPECT_EQ(inv[64], 0.0f);
  EXPECT_EQ(inv[255], 0.0f);
  std::vector<float> inv_s = RopeInvFreq(c->rope_sliding, 256);
  ASSERT_EQ(inv_s.size(), 128u);
  EXPECT_GT(inv_s[127], 0.0f);
  EXPECT_NEAR(inv_s[64], 1.0f / 100.0f, 1e-8);  // 10000^(-128/256)
}

TEST(Gemma4Config, E4B) {
  auto c = ParseGemma4Config(Read("configs/gemma-4-E4B-it.config.json"));
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->num_layers, 42);
  EXPECT_EQ(c->num_kv_shared_layers, 18);
  for (const LayerConfig& l : c->layers) EXPECT_EQ(l.intermediate_size, 10240);  // not double-wide
  EXPECT_TRUE(c->layers[41].kv_shared);
  EXPECT_EQ(c->layers[41].kv_source, 23);
}

TEST(Gemma4Config, Dense31BHasKEqVOnGlobalLayers) {
  auto c = ParseGemma4Config(Read("configs/gemma-4-31B-it.config.json"));
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->hidden_size_per_layer_input, 0);
  EXPECT_EQ(c->num_kv_shared_layers, 0);
  for (const LayerConfig& l : c->layers) {
    EXPECT_FALSE(l.kv_shared);
    EXPECT_EQ(l.k_eq_v, !l.sliding);
    EXPECT_EQ(l.num_kv_heads, l.sliding ? 16 : 4);
    EXPECT_EQ(l.head_dim, l.sliding ? 256 : 512);
  }
  // Its images attend bidirectionally on sliding layers (EncodeMedia refuses).
  EXPECT_TRUE(c->bidirectional_vision);
  auto e2b = ParseGemma4Config(Read("configs/gemma-4-E2B-it.config.json"));
  ASSERT_TRUE(e2b.ok()) << e2b.status().message();
  EXPECT_FALSE(e2b->bidirectional_vision);
}

TEST(Gemma4Config, RefusesMoEUnifiedAndDrafter) {
  auto moe = ParseGemma4Config(Read("configs/gemma-4-26B-A4B-it.config.json"));
  EXPECT_EQ(moe.status().code(), OXI_UNIMPLEMENTED);
  EXPECT_NE(moe.status().message().find("MoE"), std::string::npos) << moe.status().message();
  auto unified = ParseGemma4Config(Read("configs/gemma-4-12B.config.json"));
  EXPECT_EQ(unified.status().code(), OXI_UNIMPLEMENTED);
  EXPECT_NE(unified.status().message().find("unified"), std::string::npos)
      << unified.status().message();
  auto drafter = ParseGemma4Config(Read("configs/gemma-4-E4B-it-assistant.config.json"));
  EXPECT_EQ(drafter.status().code(), OXI_UNIMPLEMENTED) << drafter.status().message();
}

TEST(Gemma4Config, PerLayerConfigLayoutOfNewerTransformers) {
  // What transformers 5.24 writes for the keqv_sharded fixture's text part.
  const std::string json = R"({
    "model_type": "gemma4_text", "vocab_size": 200, "hidden_size": 48,
    "intermediate_size": 64, "num_hidden_layers": 4, "num_attention_heads": 4,
    "num_key_value_heads": 2, "head_dim": 16, "attention_k_eq_v": true,
    "hidden_size_per_layer_input": 0, "sliding_window": 6,
    "layer_types": ["sliding_attention", "full_attention", "sliding_attention", "full_attention"],
    "per_layer_config": {"1": {"head_dim": 32, "num_key_value_heads": 1},
                         "3": {"head_dim": 32, "num_key_value_heads": 1}}})";
  auto c = ParseGemma4Config(json);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->layers[0].head_dim, 16);
  EXPECT_EQ(c->layers[0].num_kv_heads, 2);
  EXPECT_EQ(c->layers[1].head_dim, 32);
  EXPECT_EQ(c->layers[1].num_kv_heads, 1);
  EXPECT_TRUE(c->layers[1].k_eq_v);
  EXPECT_FALSE(c->layers[0].k_eq_v);
}

TEST(Gemma4Config, Malformed) {
  EXPECT_FALSE(ParseGemma4Config("{").ok());
  EXPECT_FALSE(ParseGemma4Config("[]").ok());
  EXPECT_FALSE(ParseGemma4Config(R"({"model_type": "gemma4"})").ok());
  EXPECT_FALSE(ParseGemma4Config(R"({"model_type": "gemma4_text", "hidden_size": -1})").ok());
  EXPECT_FALSE(
      ParseGemma4Config(
          R"({"model_type": "gemma4_text", "num_hidden_layers": 2, "layer_types": ["x", "y"]})")
          .ok());
  EXPECT_FALSE(ParseGemma4Config(R"({"model_type": "gemma4_text", "num_attention_heads": 3,
                                     "num_key_value_heads": 2})")
                   .ok());
}

TEST(Gemma4Config, StopAndSpecialTokensFromBothLevels) {
  auto c = ParseGemma4Config(Read("configs/gemma-4-E2B-it.config.json"));
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->tokens.stop_tokens, (std::vector<int32_t>{1, 106}));
  EXPECT_EQ(c->tokens.pad_token_id, 0);
  const std::vector<std::pair<std::string, int32_t>> expect = {
      {"eos", 1},        {"bos", 2},      {"pad", 0},      {"image", 258880}, {"audio", 258881},
      {"video", 258884}, {"boi", 255999}, {"eoi", 258882}, {"boa", 256000},   {"eoa", 258883}};
  EXPECT_EQ(c->tokens.special_tokens, expect);
  EXPECT_EQ(c->first_kv_shared(), 15);
}

// Values that would make garbage (or divide by zero) are refused at load,
// naming the field.
TEST(Gemma4Config, RefusesDegenerateValuesNamingTheField) {
  const std::pair<const char*, const char*> cases[] = {
      {R"("rms_norm_eps": 0)", "rms_norm_eps: must be a positive finite number"},
      {R"("rms_norm_eps": -1e-6)", "rms_norm_eps: must be a positive finite number"},
      {R"("head_dim": 0)", "head_dim"},
      {R"("global_head_dim": 7)", "global_head_dim"},
      {R"("num_attention_heads": 0)", "num_attention_heads"},
      {R"("final_logit_softcapping": -1)", "final_logit_softcapping"},
  };
  for (const auto& [field, words] : cases) {
    auto c = ParseGemma4Config(std::string(R"({"model_type": "gemma4_text", )") + field + "}");
    ASSERT_FALSE(c.ok()) << field;
    EXPECT_NE(c.status().message().find(words), std::string::npos)
        << field << ": " << c.status().message();
  }
}

TEST(Gemma4Config, ErrorsNameTheField) {
  auto c = ParseGemma4Config(R"({"model_type": "gemma4_text", "hidden_size": -1})");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("hidden_size"), std::string::npos) << c.status().message();
  c = ParseGemma4Config(R"({"model_type": "gemma4_text", "rms_norm_eps": "small"})");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("rms_norm_eps"), std::string::npos) << c.status().message();
  c = ParseGemma4Config(
      R"({"model_type": "gemma4_text", "num_hidden_layers": 2, "layer_types": ["x", "y"]})");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("layer_types[0]"), std::string::npos) << c.status().message();
  c = ParseGemma4Config(R"({"model_type": "gemma4_text", "num_hidden_layers": 2,
                            "per_layer_config": {"7": {"head_dim": 8}}})");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("per_layer_config.7"), std::string::npos)
      << c.status().message();
}

}  // namespace
}  // namespace gemma4
}  // namespace oxinfer
