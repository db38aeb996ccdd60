// Gemma 4 assistant (drafter) config parsing on the published
// gemma-4-E4B-it-assistant config, its fit against the main models' configs,
// and a refusal naming the field for each kind of bad config.
#include "plugins/models/gemma4/gemma4_assistant_config.h"

#include <string>

#include "gtest/gtest.h"
#include "oxinfer/sdk/common.hpp"
#include "tests/support/plugin_host.h"

namespace oxinfer {
namespace gemma4 {
namespace {

const char kDir[] = "tests/models/gemma4/testdata/configs/";

std::string Read(const std::string& name) { return oxinfer::testing::ReadTestFile(kDir + name); }

const std::string& Published() {
  static const std::string text = Read("gemma-4-E4B-it-assistant.config.json");
  return text;
}

// The published config with `from` (which must occur once) replaced by `to`.
std::string With(const std::string& from, const std::string& to) {
  std::string text = Published();
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  EXPECT_EQ(text.find(from, at + 1), std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

Gemma4Config Main(const char* name) {
  auto c = ParseGemma4Config(Read(name));
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? *c : Gemma4Config();
}

TEST(Gemma4AssistantConfig, PublishedE4BAssistant) {
  auto a = ParseGemma4AssistantConfig(Published(), "config.json");
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->backbone_hidden_size, 2560);
  EXPECT_TRUE(a->use_ordered_embeddings);
  EXPECT_EQ(a->num_centroids, 2048);
  EXPECT_EQ(a->centroid_intermediate_top_k, 32);
  EXPECT_EQ(a->tokens_per_centroid(), 128);
  const Gemma4Config& t = a->text;
  EXPECT_EQ(t.num_layers, 4);
  EXPECT_EQ(t.hidden_size, 256);
  EXPECT_EQ(t.num_heads, 4);
  EXPECT_EQ(t.vocab_size, 262144);
  EXPECT_EQ(t.hidden_size_per_layer_input, 0);
  EXPECT_EQ(t.first_kv_shared(), 0);
  for (int i = 0; i < 4; ++i) {
    const LayerConfig& l = t.layers[i];
    EXPECT_EQ(l.sliding, i < 3) << i;
    EXPECT_TRUE(l.kv_shared) << i;
    EXPECT_EQ(l.kv_source, -1) << i;
    EXPECT_EQ(l.head_dim, l.sliding ? 256 : 512) << i;
    EXPECT_EQ(l.num_kv_heads, 2) << i;
    EXPECT_EQ(l.intermediate_size, 2048) << i;
  }
}

TEST(Gemma4AssistantConfig, FitsE4BNotE2B) {
  auto a = ParseGemma4AssistantConfig(Published(), "config.json");
  ASSERT_TRUE(a.ok()) << a.status().message();
  const Gemma4Config e4b = Main("gemma-4-E4B-it.config.json");
  EXPECT_TRUE(CheckAssistantFits(*a, e4b).ok());
  // E4B: 42 layers, the last 18 shared; layers 22 (sliding) and 23 (full) store.
  EXPECT_EQ(AssistantKvSource(e4b, true), 22);
  EXPECT_EQ(AssistantKvSource(e4b, false), 23);
  const sdk::Status e2b = CheckAssistantFits(*a, Main("gemma-4-E2B-it.config.json"));
  EXPECT_EQ(e2b.code(), OXI_INVALID_ARGUMENT);
  EXPECT_NE(e2b.message().find("backbone_hidden_size 2560"), std::string::npos) << e2b.message();
}

TEST(Gemma4AssistantConfig, MisfitsNameTheField) {
  const Gemma4Config e4b = Main("gemma-4-E4B-it.config.json");
  const struct {
    const char *from, *to, *field;
  } kCases[] = {
      {"\"global_head_dim\": 512", "\"global_head_dim\": 256", "head_dim 256"},
      {"\"sliding_window\": 512", "\"sliding_window\": 1024", "sliding_window 1024"},
      {"\"vocab_size\": 262144", "\"vocab_size\": 131072", "vocab_size 131072"},
  };
  for (const auto& c : kCases) {
    auto a = ParseGemma4AssistantConfig(With(c.from, c.to), "config.json");
    ASSERT_TRUE(a.ok()) << c.to << ": " << a.status().message();
    const sdk::Status s = CheckAssistantFits(*a, e4b);
    EXPECT_EQ(s.code(), OXI_INVALID_ARGUMENT) << c.to;
    EXPECT_NE(s.message().find(c.field), std::string::npos) << c.to << ": " << s.message();
  }
}

TEST(Gemma4AssistantConfig, BadConfigsNameTheField) {
  const struct {
    const char *from, *to, *field;
  } kCases[] = {
      {"\"model_type\": \"gemma4_assistant\"", "\"model_type\": \"gemma4\"", "gemma4_assistant"},
      {"\"text_config\"", "\"text_cfg\"", "text_config"},
      {"\"num_kv_shared_layers\": 4", "\"num_kv_shared_layers\": 2", "num_kv_shared_layers"},
      {"\"hidden_size_per_layer_input\": 0", "\"hidden_size_per_layer_input\": 256",
       "hidden_size_per_layer_input"},
      {"\"use_double_wide_mlp\": false", "\"use_double_wide_mlp\": true", "use_double_wide_mlp"},
      {"\"num_centroids\": 2048", "\"num_centroids\": 3000", "num_centroids"},
      {"\"centroid_intermediate_top_k\": 32", "\"centroid_intermediate_top_k\": 4096",
       "centroid_intermediate_top_k"},
      {"\"backbone_hidden_size\": 2560", "\"backbone_hidden_size\": 0", "backbone_hidden_size"},
      {"\"use_ordered_embeddings\": true", "\"use_ordered_embeddings\": 3",
       "use_ordered_embeddings"},
      {"\"enable_moe_block\": false", "\"enable_moe_block\": true", "enable_moe_block"},
      {"\"num_attention_heads\": 4", "\"num_attention_heads\": 3", "num_attention_heads"},
  };
  for (const auto& c : kCases) {
    auto a = ParseGemma4AssistantConfig(With(c.from, c.to), "assistant/config.json");
    ASSERT_FALSE(a.ok()) << c.to;
    EXPECT_NE(a.status().message().find(c.field), std::string::npos)
        << c.to << ": " << a.status().message();
  }
}

}  // namespace
}  // namespace gemma4
}  // namespace oxinfer
