// Parsing the published Qwen 3.5 / 3.8 config.json files (copied from
// shared/data/configs) and refusing other families cleanly.
#include "plugins/models/qwen35/qwen35_config.h"

#include <cstdlib>
#include <string>

#include "gtest/gtest.h"
#include "plugins/models/qwen35/weights.h"

namespace oxinfer {
namespace qwen35 {
namespace {

std::string Config(const std::string& name) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* ws = std::getenv("TEST_WORKSPACE");
  std::string path = "tests/models/qwen35/testdata/configs/" + name + ".config.json";
  if (srcdir != nullptr && ws != nullptr) path = std::string(srcdir) + "/" + ws + "/" + path;
  auto text = ReadTextFile(path);
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : std::string();
}

TEST(Qwen35Config, Qwen35_0_8B) {
  auto c = ParseQwen35Config(Config("Qwen3.5-0.8B"));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->model_type, "qwen3_5");
  EXPECT_EQ(c->vocab_size, 248320);
  EXPECT_EQ(c->hidden_size, 1024);
  EXPECT_EQ(c->intermediate_size, 3584);
  EXPECT_EQ(c->num_hidden_layers, 24);
  EXPECT_EQ(c->num_attention_heads, 8);
  EXPECT_EQ(c->num_key_value_heads, 2);
  EXPECT_EQ(c->head_dim, 256);
  EXPECT_EQ(c->rotary_dim, 64);
  EXPECT_DOUBLE_EQ(c->rope_theta, 1e7);
  EXPECT_EQ(c->linear_num_key_heads, 16);
  EXPECT_EQ(c->linear_num_value_heads, 16);
  EXPECT_EQ(c->conv_dim(), 6144);
  EXPECT_EQ(c->value_dim(), 2048);
  EXPECT_TRUE(c->tie_word_embeddings);
  EXPECT_DOUBLE_EQ(c->rms_norm_eps, 1e-6);
  ASSERT_EQ(c->layer_types.size(), 24u);
  for (int i = 0; i < 24; ++i) {
    EXPECT_EQ(c->layer_types[i], (i + 1) % 4 ? LayerType::kLinearAttention : LayerType::kFullAttention);
  }
  ASSERT_EQ(c->eos_token_ids.size(), 1u);
  EXPECT_EQ(c->eos_token_ids[0], 248044);
}

TEST(Qwen35Config, Qwen38_27B) {
  auto c = ParseQwen35Config(Config("Qwen3.8-27B"));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->hidden_size, 5120);
  EXPECT_EQ(c->num_hidden_layers, 64);
  EXPECT_EQ(c->linear_num_value_heads, 48);
  EXPECT_EQ(c->linear_num_key_heads, 16);
  EXPECT_EQ(c->num_attention_heads, 24);
  EXPECT_EQ(c->num_key_value_heads, 4);
  EXPECT_FALSE(c->tie_word_embeddings);
  EXPECT_EQ(c->layer_types[63], LayerType::kFullAttention);
  EXPECT_EQ(c->layer_types[62], LayerType::kLinearAttention);
}

TEST(Qwen35Config, TextOnlyConfigAndIntervalDefault) {
  auto c = ParseQwen35Config(R"({"model_type": "qwen3_5_text", "vocab_size": 10, "hidden_size": 8,
      "intermediate_size": 16, "num_hidden_layers": 8, "num_attention_heads": 2,
      "num_key_value_heads": 1, "head_dim": 4, "tie_word_embeddings": true,
      "rope_theta": 1000.0, "partial_rotary_factor": 0.5})");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->rotary_dim, 2);
  EXPECT_DOUBLE_EQ(c->rope_theta, 1000.0);
  EXPECT_EQ(c->layer_types[3], LayerType::kFullAttention);
  EXPECT_EQ(c->layer_types[4], LayerType::kLinearAttention);
  EXPECT_EQ(c->linear_num_value_heads, 32);  // Qwen3_5TextConfig defaults
}

TEST(Qwen35Config, RefusesOthers) {
  EXPECT_EQ(ParseQwen35Config(R"({"model_type": "gemma4"})").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseQwen35Config(R"({"model_type": "qwen3_5_moe"})").status().code(),
            absl::StatusCode::kUnimplemented);
  EXPECT_EQ(ParseQwen35Config("[1, 2").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseQwen35Config(R"({"model_type": "qwen3_5", "text_config": 3})").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(ParseQwen35Config(R"({"model_type": "qwen3_5_text", "vocab_size": "x"})").ok());
}

}  // namespace
}  // namespace qwen35
}  // namespace oxinfer
