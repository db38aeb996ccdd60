// Parsing the published Qwen 3.5 / 3.8 config.json files (copied from
// shared/data/configs) through the host's JSON parser, and refusing other
// families and bad fields with messages that name the field.
#include "plugins/models/qwen35/qwen35_config.h"

#include <string>

#include "gtest/gtest.h"
#include "tests/support/plugin_host.h"

namespace oxinfer {
namespace qwen35 {
namespace {

class Qwen35Config : public ::testing::Test {
 protected:
  static std::string Config(const std::string& name) {
    return oxinfer::testing::ReadTestFile("tests/models/qwen35/testdata/configs/" + name +
                                          ".config.json");
  }
  // The error of a config expected to be refused with `code`.
  static std::string Refusal(const std::string& json, int32_t code) {
    auto c = ParseQwen35Config(json);
    EXPECT_FALSE(c.ok()) << json;
    if (c.ok()) return "";
    EXPECT_EQ(c.status().code(), code) << c.status().message();
    return c.status().message();
  }
};

// A minimal valid text-only config, with `extra` members added.
std::string TextConfig(const std::string& extra = "") {
  return R"({"model_type": "qwen3_5_text", "vocab_size": 10, "hidden_size": 8,
      "intermediate_size": 16, "num_hidden_layers": 8, "num_attention_heads": 2,
      "num_key_value_heads": 1, "head_dim": 4)" +
         extra + "}";
}

TEST_F(Qwen35Config, Qwen35_0_8B) {
  auto c = ParseQwen35Config(Config("Qwen3.5-0.8B"));
  ASSERT_TRUE(c.ok()) << c.status().message();
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
  EXPECT_EQ(c->max_position_embeddings, 262144);
  ASSERT_EQ(c->layer_types.size(), 24u);
  for (int i = 0; i < 24; ++i) {
    EXPECT_EQ(c->layer_types[i],
              (i + 1) % 4 ? LayerType::kLinearAttention : LayerType::kFullAttention);
  }
  ASSERT_EQ(c->eos_token_ids.size(), 1u);
  EXPECT_EQ(c->eos_token_ids[0], 248044);
  const std::vector<std::pair<std::string, int64_t>> specials = {
      {"image", 248056}, {"video", 248057}, {"boi", 248053}, {"eoi", 248054}, {"eos", 248044}};
  EXPECT_EQ(c->special_tokens, specials);
}

TEST_F(Qwen35Config, Qwen38_27B) {
  auto c = ParseQwen35Config(Config("Qwen3.8-27B"));
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->hidden_size, 5120);
  EXPECT_EQ(c->num_hidden_layers, 64);
  EXPECT_EQ(c->linear_num_value_heads, 48);
  EXPECT_EQ(c->linear_num_key_heads, 16);
  EXPECT_EQ(c->num_attention_heads, 24);
  EXPECT_EQ(c->num_key_value_heads, 4);
  EXPECT_FALSE(c->tie_word_embeddings);
  EXPECT_EQ(c->layer_types[63], LayerType::kFullAttention);
  EXPECT_EQ(c->layer_types[62], LayerType::kLinearAttention);
  // The top level's list, then text_config's (already in it).
  EXPECT_EQ(c->eos_token_ids, (std::vector<int64_t>{248046, 248044}));
  ASSERT_FALSE(c->special_tokens.empty());
  EXPECT_EQ(c->special_tokens[0], (std::pair<std::string, int64_t>{"bos", 248044}));
}

TEST_F(Qwen35Config, TextOnlyConfigAndIntervalDefault) {
  auto c = ParseQwen35Config(TextConfig(R"(, "tie_word_embeddings": true, "rope_theta": 1000.0,
                    "partial_rotary_factor": 0.5)"));
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->rotary_dim, 2);
  EXPECT_DOUBLE_EQ(c->rope_theta, 1000.0);
  EXPECT_TRUE(c->tie_word_embeddings);
  EXPECT_EQ(c->layer_types[3], LayerType::kFullAttention);
  EXPECT_EQ(c->layer_types[4], LayerType::kLinearAttention);
  EXPECT_EQ(c->linear_num_value_heads, 32);  // Qwen3_5TextConfig defaults
  EXPECT_TRUE(c->eos_token_ids.empty());
}

TEST_F(Qwen35Config, RefusesOtherFamilies) {
  EXPECT_NE(Refusal(R"({"model_type": "gemma4"})", OXI_INVALID_ARGUMENT).find("gemma4"),
            std::string::npos);
  EXPECT_NE(Refusal(R"({"model_type": "qwen3_5_moe"})", OXI_UNIMPLEMENTED).find("MoE"),
            std::string::npos);
  Refusal("[1, 2", OXI_INVALID_ARGUMENT);
  Refusal("[1, 2]", OXI_INVALID_ARGUMENT);
  EXPECT_NE(Refusal(R"({"model_type": "qwen3_5", "text_config": 3})", OXI_INVALID_ARGUMENT)
                .find("text_config"),
            std::string::npos);
}

// Every refusal names the field.
TEST_F(Qwen35Config, RefusalsNameTheField) {
  struct Case {
    std::string json;
    int32_t code;
    const char* words;
  };
  const Case cases[] = {
      {R"({"model_type": "qwen3_5_text", "vocab_size": "x"})", OXI_INVALID_ARGUMENT,
       "vocab_size: expected an integer, got a string"},
      {R"({"model_type": "qwen3_5_text", "vocab_size": 10})", OXI_INVALID_ARGUMENT,
       "hidden_size: missing"},
      {TextConfig(R"(, "hidden_act": "gelu")"), OXI_UNIMPLEMENTED, "hidden_act: 'gelu'"},
      {TextConfig(R"(, "attn_output_gate": false)"), OXI_UNIMPLEMENTED, "attn_output_gate"},
      {TextConfig(R"(, "attention_bias": true)"), OXI_UNIMPLEMENTED, "attention_bias"},
      {TextConfig(R"(, "attention_bias": 1)"), OXI_INVALID_ARGUMENT, "attention_bias"},
      {TextConfig(R"(, "output_gate_type": "sigmoid")"), OXI_UNIMPLEMENTED, "output_gate_type"},
      {TextConfig(R"(, "num_experts": 8)"), OXI_UNIMPLEMENTED, "num_experts"},
      {TextConfig(R"(, "rope_parameters": {"rope_type": "yarn"})"), OXI_UNIMPLEMENTED,
       "rope_parameters: rope_type 'yarn'"},
      {TextConfig(R"(, "rope_theta": "big")"), OXI_INVALID_ARGUMENT, "rope_theta"},
      {TextConfig(R"(, "layer_types": ["full_attention"])"), OXI_INVALID_ARGUMENT,
       "layer_types: has 1 entries, not num_hidden_layers (8)"},
      {TextConfig(R"(, "layer_types": ["linear_attention", "sliding"])"), OXI_INVALID_ARGUMENT,
       "layer_types[1]: unknown layer type 'sliding'"},
      {TextConfig(R"(, "full_attention_interval": 0)"), OXI_INVALID_ARGUMENT,
       "full_attention_interval: must be positive"},
      {TextConfig(R"(, "eos_token_id": [1, "x"])"), OXI_INVALID_ARGUMENT, "eos_token_id[1]"},
      {TextConfig(R"(, "rms_norm_eps": 0)"), OXI_INVALID_ARGUMENT, "rms_norm_eps: must be"},
      {TextConfig(R"(, "linear_conv_kernel_dim": -1)"), OXI_INVALID_ARGUMENT,
       "linear_conv_kernel_dim: -1 is zero, negative or too large"},
      {R"({"model_type": "qwen3_5_text", "vocab_size": 10, "hidden_size": 8,
          "intermediate_size": 16, "num_hidden_layers": 8, "num_attention_heads": 3,
          "num_key_value_heads": 2, "head_dim": 4})",
       OXI_INVALID_ARGUMENT, "num_attention_heads: 3 is not a multiple of num_key_value_heads"},
      {TextConfig(R"(, "linear_num_key_heads": 3, "linear_num_value_heads": 4)"),
       OXI_INVALID_ARGUMENT, "linear_num_value_heads: 4 is not a multiple"},
      {TextConfig(R"(, "partial_rotary_factor": 0.75)"), OXI_INVALID_ARGUMENT,
       "partial_rotary_factor: gives a rotary dim of 3"},
  };
  for (const Case& c : cases) {
    const std::string message = Refusal(c.json, c.code);
    EXPECT_NE(message.find(c.words), std::string::npos) << message << "\n  for " << c.json;
    EXPECT_EQ(message.rfind("config.json: ", 0), 0u) << message;
  }
}

}  // namespace
}  // namespace qwen35
}  // namespace oxinfer
