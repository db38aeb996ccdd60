#include "core/model_config.h"

#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace oxinfer {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Tests run from the workspace root inside the runfiles tree.
const std::string kConfigs = "tests/core/testdata/configs/";

TEST(ConfigProbeTest, RealConfigs) {
  struct Case {
    const char* dir;
    const char* model_type;
    const char* architecture;
    const char* text_model_type;
  };
  const Case cases[] = {
      {"gemma-4-E2B-it", "gemma4", "Gemma4ForConditionalGeneration", "gemma4_text"},
      {"gemma-4-12B", "gemma4_unified", "Gemma4UnifiedForConditionalGeneration",
       "gemma4_unified_text"},
      {"gemma-4-E4B-it-assistant", "gemma4_assistant", "Gemma4AssistantForCausalLM", "gemma4_text"},
      {"Qwen3.5-0.8B", "qwen3_5", "Qwen3_5ForConditionalGeneration", "qwen3_5_text"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<config::ConfigProbe> p = LoadConfigProbe(kConfigs + c.dir + "/config.json");
    ASSERT_TRUE(p.ok()) << p.status();
    EXPECT_EQ(p->model_type(), c.model_type);
    EXPECT_THAT(p->architectures(), ElementsAre(c.architecture));
    EXPECT_EQ(p->text_config().model_type(), c.text_model_type);
  }
}

TEST(Gemma4ConfigTest, E2B) {
  absl::StatusOr<config::Gemma4Config> c =
      LoadGemma4Config(kConfigs + "gemma-4-E2B-it/config.json");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->model_type(), "gemma4");
  EXPECT_THAT(c->eos_token_id(), ElementsAre(1, 106));
  EXPECT_EQ(c->image_token_id(), 258880);
  const config::Gemma4TextConfig& t = c->text_config();
  EXPECT_EQ(t.model_type(), "gemma4_text");
  EXPECT_EQ(t.hidden_size(), 1536);
  EXPECT_EQ(t.intermediate_size(), 6144);
  EXPECT_EQ(t.num_hidden_layers(), 35);
  EXPECT_EQ(t.num_attention_heads(), 8);
  EXPECT_EQ(t.num_key_value_heads(), 1);
  EXPECT_EQ(t.head_dim(), 256);
  EXPECT_EQ(t.global_head_dim(), 512);
  EXPECT_FALSE(t.has_num_global_key_value_heads());  // null in the file
  EXPECT_FALSE(t.has_num_experts());
  EXPECT_FALSE(t.has_use_bidirectional_attention());
  EXPECT_EQ(t.vocab_size(), 262144);
  EXPECT_EQ(t.hidden_size_per_layer_input(), 256);
  EXPECT_EQ(t.num_kv_shared_layers(), 20);
  EXPECT_TRUE(t.use_double_wide_mlp());
  EXPECT_FALSE(t.attention_k_eq_v());
  EXPECT_EQ(t.sliding_window(), 512);
  EXPECT_DOUBLE_EQ(t.final_logit_softcapping(), 30.0);
  EXPECT_DOUBLE_EQ(t.rms_norm_eps(), 1e-6);
  EXPECT_EQ(t.hidden_activation(), "gelu_pytorch_tanh");
  EXPECT_THAT(t.eos_token_id(), ElementsAre(1));  // an int in the file
  ASSERT_EQ(t.layer_types_size(), 35);
  EXPECT_EQ(t.layer_types(0), "sliding_attention");
  EXPECT_EQ(t.layer_types(4), "full_attention");
  const config::RopeParameters& full = t.rope_parameters().at("full_attention");
  EXPECT_EQ(full.rope_type(), "proportional");
  EXPECT_DOUBLE_EQ(full.rope_theta(), 1e6);
  EXPECT_DOUBLE_EQ(full.partial_rotary_factor(), 0.25);
  const config::RopeParameters& sliding = t.rope_parameters().at("sliding_attention");
  EXPECT_EQ(sliding.rope_type(), "default");
  EXPECT_DOUBLE_EQ(sliding.rope_theta(), 1e4);
  EXPECT_FALSE(sliding.has_partial_rotary_factor());
}

TEST(Gemma4ConfigTest, OtherSizes) {
  absl::StatusOr<config::Gemma4Config> moe =
      LoadGemma4Config(kConfigs + "gemma-4-26B-A4B-it/config.json");
  ASSERT_TRUE(moe.ok()) << moe.status();
  EXPECT_TRUE(moe->text_config().enable_moe_block());
  EXPECT_EQ(moe->text_config().num_experts(), 128);
  EXPECT_EQ(moe->text_config().top_k_experts(), 8);
  EXPECT_EQ(moe->text_config().moe_intermediate_size(), 704);
  EXPECT_TRUE(moe->text_config().attention_k_eq_v());
  EXPECT_EQ(moe->text_config().num_global_key_value_heads(), 2);
  EXPECT_EQ(moe->text_config().use_bidirectional_attention(), "vision");

  absl::StatusOr<config::Gemma4Config> dense =
      LoadGemma4Config(kConfigs + "gemma-4-31B-it/config.json");
  ASSERT_TRUE(dense.ok()) << dense.status();
  EXPECT_EQ(dense->text_config().num_hidden_layers(), 60);

  absl::StatusOr<config::Gemma4Config> unified =
      LoadGemma4Config(kConfigs + "gemma-4-12B/config.json");
  ASSERT_TRUE(unified.ok()) << unified.status();
  EXPECT_EQ(unified->text_config().hidden_size(), 3840);
  EXPECT_TRUE(unified->eos_token_id().empty());

  absl::StatusOr<config::Gemma4Config> drafter =
      LoadGemma4Config(kConfigs + "gemma-4-E4B-it-assistant/config.json");
  ASSERT_TRUE(drafter.ok()) << drafter.status();
  EXPECT_FALSE(drafter->text_config().has_final_logit_softcapping());
  EXPECT_EQ(drafter->backbone_hidden_size(), 2560);
  EXPECT_TRUE(drafter->use_ordered_embeddings());
}

TEST(Gemma4ConfigTest, TextOnlyConfigIsItsOwnTextConfig) {
  absl::StatusOr<config::Gemma4Config> c = ParseGemma4Config(R"({
    "model_type": "gemma4_text", "vocab_size": 16, "hidden_size": 8,
    "intermediate_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2,
    "num_key_value_heads": 1, "head_dim": 4, "rms_norm_eps": 1e-6,
    "layer_types": ["sliding_attention", "full_attention"], "eos_token_id": 1,
    "rope_parameters": {"sliding_attention": {"rope_type": "default", "rope_theta": 10000},
                        "full_attention": {"rope_type": "default", "rope_theta": 1000000}}})");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->model_type(), "gemma4_text");
  EXPECT_EQ(c->text_config().hidden_size(), 8);
  EXPECT_THAT(c->eos_token_id(), ElementsAre(1));
}

TEST(Qwen35ConfigTest, Real) {
  absl::StatusOr<config::Qwen35Config> c = LoadQwen35Config(kConfigs + "Qwen3.5-0.8B/config.json");
  ASSERT_TRUE(c.ok()) << c.status();
  const config::Qwen35TextConfig& t = c->text_config();
  EXPECT_EQ(t.hidden_size(), 1024);
  EXPECT_EQ(t.num_hidden_layers(), 24);
  EXPECT_EQ(t.layer_types(3), "full_attention");
  EXPECT_EQ(t.layer_types(0), "linear_attention");
  EXPECT_EQ(t.linear_num_value_heads(), 16);
  EXPECT_TRUE(t.attn_output_gate());
  EXPECT_THAT(t.eos_token_id(), ElementsAre(248044));
  EXPECT_EQ(t.rope_parameters().rope_type(), "default");
  EXPECT_DOUBLE_EQ(t.rope_parameters().rope_theta(), 1e7);
  EXPECT_DOUBLE_EQ(t.rope_parameters().partial_rotary_factor(), 0.25);
  EXPECT_THAT(t.rope_parameters().mrope_section(), ElementsAre(11, 11, 10));
  EXPECT_TRUE(t.rope_parameters().mrope_interleaved());
  EXPECT_TRUE(t.mlp_only_layers().empty());
  EXPECT_EQ(c->vision_start_token_id(), 248053);

  absl::StatusOr<config::Qwen35Config> big = LoadQwen35Config(kConfigs + "Qwen3.8-27B/config.json");
  ASSERT_TRUE(big.ok()) << big.status();
  EXPECT_EQ(big->text_config().linear_num_value_heads(), 48);
  EXPECT_FALSE(big->text_config().has_pad_token_id());  // null in the file
  EXPECT_EQ(big->text_config().output_gate_type(), "swish");
  EXPECT_FALSE(big->text_config().tie_word_embeddings());
}

TEST(Qwen35ConfigTest, LayerTypesDefaultFromInterval) {
  absl::StatusOr<config::Qwen35Config> c = ParseQwen35Config(R"({"text_config": {
    "vocab_size": 16, "hidden_size": 8, "intermediate_size": 32, "num_hidden_layers": 4,
    "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 4, "rms_norm_eps": 1e-6,
    "full_attention_interval": 2, "linear_conv_kernel_dim": 4, "linear_key_head_dim": 4,
    "linear_num_key_heads": 1, "linear_num_value_heads": 2, "linear_value_head_dim": 4,
    "rope_parameters": {"rope_type": "default", "rope_theta": 10000}}})");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_THAT(c->text_config().layer_types(), ElementsAre("linear_attention", "full_attention",
                                                          "linear_attention", "full_attention"));
}

TEST(GenerationConfigTest, IntOrListEos) {
  absl::StatusOr<config::GenerationConfig> list =
      LoadGenerationConfig(kConfigs + "gemma-4-E2B-it/generation_config.json");
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_THAT(list->eos_token_id(), ElementsAre(1, 106, 50));
  EXPECT_EQ(list->top_k(), 64);
  EXPECT_DOUBLE_EQ(list->top_p(), 0.95);
  EXPECT_TRUE(list->do_sample());
  EXPECT_EQ(list->bos_token_id(), 2);
  EXPECT_EQ(list->pad_token_id(), 0);
  EXPECT_TRUE(list->has_pad_token_id());
  EXPECT_FALSE(list->has_repetition_penalty());

  absl::StatusOr<config::GenerationConfig> single =
      LoadGenerationConfig(kConfigs + "gemma-4-12B/generation_config.json");
  ASSERT_TRUE(single.ok()) << single.status();
  EXPECT_THAT(single->eos_token_id(), ElementsAre(1));
  EXPECT_THAT(single->suppress_tokens(), ElementsAre(258883, 258882));

  absl::StatusOr<config::GenerationConfig> qwen =
      LoadGenerationConfig(kConfigs + "Qwen3.8-27B/generation_config.json");
  ASSERT_TRUE(qwen.ok()) << qwen.status();
  EXPECT_THAT(qwen->eos_token_id(), ElementsAre(248046, 248044));
  EXPECT_EQ(qwen->top_k(), 20);
}

// ---- errors name the file and the field ----

TEST(ConfigErrorsTest, MalformedJson) {
  absl::Status s = ParseGemma4Config("{\"model_type\": ", "/m/config.json").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("/m/config.json"));
  EXPECT_THAT(s.message(), HasSubstr("not valid JSON"));
  s = ParseGenerationConfig("[1]", "/m/generation_config.json").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("not an object"));
  s = ParseConfigProbe(R"({"model_type": "a", "model_type": "b"})", "/m/config.json").status();
  EXPECT_THAT(s.message(), HasSubstr("duplicate key 'model_type'"));
}

TEST(ConfigErrorsTest, WrongTypeNamesTheField) {
  absl::Status s =
      ParseGemma4Config(R"({"text_config": {"hidden_size": "big"}})", "/m/config.json").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("/m/config.json"));
  EXPECT_THAT(s.message(), HasSubstr("hidden_size"));
  s = ParseGenerationConfig(R"({"top_k": [1, 2]})", "/m/generation_config.json").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("top_k"));
  s = ParseGenerationConfig(R"({"eos_token_id": "one"})", "/m/generation_config.json").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("eos_token_id"));
}

// A small valid Gemma 4 config whose text_config keys can be overridden.
std::string SmallGemma4(const std::map<std::string, std::string>& overrides) {
  std::map<std::string, std::string> fields = {
      {"vocab_size", "16"},
      {"hidden_size", "8"},
      {"intermediate_size", "32"},
      {"num_hidden_layers", "2"},
      {"num_attention_heads", "2"},
      {"num_key_value_heads", "1"},
      {"head_dim", "4"},
      {"rms_norm_eps", "1e-6"},
      {"layer_types", R"(["sliding_attention", "full_attention"])"},
      {"rope_parameters", R"({"sliding_attention": {"rope_theta": 10000},
                              "full_attention": {"rope_theta": 1000000}})"},
  };
  for (const auto& [k, v] : overrides) fields[k] = v;
  std::string text = R"({"model_type": "gemma4", "text_config": {)";
  bool first = true;
  for (const auto& [k, v] : fields) {
    absl::StrAppend(&text, first ? "" : ", ", "\"", k, "\": ", v);
    first = false;
  }
  return text + "}}";
}

TEST(ConfigErrorsTest, SemanticChecksNameTheField) {
  ASSERT_TRUE(ParseGemma4Config(SmallGemma4({})).ok())
      << ParseGemma4Config(SmallGemma4({})).status();
  struct Case {
    const char* key;
    const char* value;
    const char* field;
  };
  const Case cases[] = {
      {"hidden_size", "0", "text_config.hidden_size: must be > 0"},
      {"num_key_value_heads", "3", "text_config.num_key_value_heads"},
      {"layer_types", R"(["sliding_attention"])", "text_config.layer_types: has 1 entries"},
      {"layer_types", R"(["sliding_attention", "weird"])", "text_config.layer_types[1]"},
      {"rope_parameters", R"({"sliding_attention": {"rope_theta": 1}})",
       "no entry for layer type 'full_attention'"},
      {"num_kv_shared_layers", "3", "text_config.num_kv_shared_layers"},
      {"enable_moe_block", "true", "text_config.num_experts"},
      {"rms_norm_eps", "null", "text_config.rms_norm_eps"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.key);
    const std::string text = SmallGemma4({{c.key, c.value}});
    absl::Status s = ParseGemma4Config(text, "/m/config.json").status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << text;
    EXPECT_THAT(s.message(), HasSubstr("config '/m/config.json'"));
    EXPECT_THAT(s.message(), HasSubstr(c.field));
  }
}

TEST(ConfigErrorsTest, MissingFile) {
  absl::Status s = LoadGemma4Config("/nonexistent/config.json").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("/nonexistent/config.json"));
}

}  // namespace
}  // namespace oxinfer
