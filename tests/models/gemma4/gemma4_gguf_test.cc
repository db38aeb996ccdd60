// --model FILE.gguf for Gemma 4: the tiny fixtures converted by llama.cpp's
// own convert_hf_to_gguf.py (tools/reference/gguf/make_gemma4_ggufs.py),
// staged as a folder (core/gguf/gguf_folder.h) and opened through the same
// plugin and host services as the safetensors folder. Logits of each prompt's
// prefill and 32 greedy steps equal the folder's (bf16 / f32 files: the same
// weights; Q8_0 files against --quant q8_0 of the folder, within what the two
// quantisations differ by), greedy identical; every served tensor holds the
// folder's values (bit for bit, or within Q8_0's rounding); the embedded
// tokenizer gives the ids of `tokenizers` on the tokenizer.json the converter
// read; broken files are refused with the file and key named.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/gguf/dequantize.h"
#include "core/gguf/gguf_checkpoint.h"
#include "core/gguf/gguf_folder.h"
#include "core/host_services.h"
#include "core/tokenizer/tokenizer.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "oxinfer/sdk/weights.hpp"
#include "tests/models/gemma4/gemma4_test_util.h"
#include "tests/support/kquant_served.h"
#include "tests/support/scoped_env.h"

namespace oxinfer {
namespace gemma4_test {
namespace {

constexpr int kGreedy = 32;

std::string GgufPath(const std::string& name) { return FixtureDir("gguf") + "/" + name; }

std::string ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

struct Case {
  const char* fixture;
  const char* gguf;
  oxi_dtype folder_dtype;  // what the folder is loaded as to compare
  bool exact;              // same weights (bf16 / f32 files)
};

class Gemma4Gguf : public ::testing::TestWithParam<Case> {};

TEST_P(Gemma4Gguf, LogitsAndGreedyEqualTheSafetensorsFolder) {
  const Case c = GetParam();
  auto staged = gguf::StagedGguf::Create(GgufPath(c.gguf));
  ASSERT_TRUE(staged.ok()) << staged.status();
  const std::string dir = FixtureDir(c.fixture);
  for (const auto& be : Backends()) {
    OpenOptions folder_options;
    folder_options.weight_dtype = c.folder_dtype;
    Model folder(dir, be->iface(), folder_options);
    Model file((*staged)->dir(), be->iface());
    ASSERT_TRUE(folder.ok() && file.ok());
    ASSERT_EQ(file.vocab(), folder.vocab());
    ASSERT_EQ(file.info().context_length, folder.info().context_length);
    const int64_t V = folder.vocab();
    const std::vector<Prompt> prompts = LoadReference(dir, V);
    ASSERT_FALSE(prompts.empty());
    for (size_t i = 0; i < prompts.size(); ++i) {
      const Prompt& pr = prompts[i];
      folder.Free(0);
      file.Free(0);
      std::vector<float> a = folder.Feed(0, pr.tokens), b = file.Feed(0, pr.tokens);
      ASSERT_EQ(a.size(), static_cast<size_t>(V));
      ASSERT_EQ(b.size(), static_cast<size_t>(V));
      const float* want = &pr.logits[(pr.tokens.size() - 1) * V];
      const float vs_transformers = MaxAbsDiff(b.data(), want, V);
      const float folder_vs_transformers = MaxAbsDiff(a.data(), want, V);
      float worst = MaxAbsDiff(a.data(), b.data(), V);
      std::vector<int32_t> greedy_folder, greedy_file;
      for (int j = 0; j < kGreedy; ++j) {
        const int32_t na = ArgMax(a.data(), V), nb = ArgMax(b.data(), V);
        greedy_folder.push_back(na);
        greedy_file.push_back(nb);
        if (j + 1 == kGreedy) break;
        // Q8_0: both follow the folder's path (the quantisations differ).
        a = folder.Feed(0, {na});
        b = file.Feed(0, {c.exact ? nb : na});
        worst = std::max(worst, MaxAbsDiff(a.data(), b.data(), V));
      }
      if (c.exact) {
        // The same weights through the same kernels: the same bits.
        EXPECT_EQ(worst, 0.0f) << c.gguf << " p" << i << ", " << be->name();
        EXPECT_EQ(greedy_file, greedy_folder) << c.gguf << " p" << i << ", " << be->name();
      } else {
        // llama.cpp's Q8_0 file also quantises the embedding tables and the
        // per-layer projections, which --quant q8_0 keeps as stored: two
        // different Q8_0 models, each about as far from transformers.
        EXPECT_LE(vs_transformers, 2 * folder_vs_transformers + 0.1f) << c.gguf << " p" << i;
      }
      std::printf(
          "[ diff ] %-24s p%zu len %3zu  max |gguf - folder| %.2e  greedy %s%s  prefill vs "
          "transformers: gguf %.2e folder %.2e  (%s)\n",
          c.gguf, i, pr.tokens.size(), worst, greedy_file == greedy_folder ? "identical" : "DIFFER",
          c.exact ? "" : " (teacher-forced)", vs_transformers, folder_vs_transformers,
          be->name().c_str());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Files, Gemma4Gguf,
    ::testing::Values(Case{"e2b_like", "e2b_like.bf16.gguf", OXI_DTYPE_INVALID, true},
                      Case{"e2b_like", "e2b_like.q8_0.gguf", OXI_DTYPE_Q8_0, false},
                      Case{"keqv_sharded", "keqv_sharded.f32.gguf", OXI_DTYPE_INVALID, true},
                      Case{"text_only_saved", "text_only_saved.f32.gguf", OXI_DTYPE_INVALID, true},
                      Case{"text_only_saved", "text_only_saved.q8_0.gguf", OXI_DTYPE_Q8_0, false}),
    [](const ::testing::TestParamInfo<Case>& info) {
      std::string n = info.param.gguf;
      std::replace(n.begin(), n.end(), '.', '_');
      return n;
    });

// K-quants (Q4_K / Q6_K, which the converter does not write): a tiny random
// model 256 wide, requantised by tools/reference/gguf/make_kquant_ggufs.py.
// With OXINFER_GGUF_KQUANT=f32, dequantised exactly at open: its logits equal
// transformers' float32 run on the values the file holds
// (tiny_kquant.reference.safetensors).
TEST(Gemma4GgufKQuants, Q4KAndQ6KFilesRunLikeTransformersOnTheirValues) {
  testing::ScopedEnv exact_values("OXINFER_GGUF_KQUANT", "f32");
  const std::string path = GgufPath("tiny_kquant.gguf");
  auto c = gguf::OpenGgufCheckpoint(path, LoadMode::kMmap);
  ASSERT_TRUE(c.ok()) << c.status();
  int q4 = 0, q6 = 0;
  for (const gguf::TensorInfo& t : (*c)->header.tensors) {
    q4 += t.type == gguf::TensorType::kQ4_K;
    q6 += t.type == gguf::TensorType::kQ6_K;
  }
  EXPECT_GT(q4, 5);
  EXPECT_GE(q6, 2);
  for (const gguf::CheckpointTensor& t : (*c)->tensors) {
    EXPECT_TRUE(t.dtype == OXI_DTYPE_F32) << t.name;  // K-quants served dequantised
  }
  auto ref =
      sdk::Weights::Open(GgufPath("tiny_kquant.reference.safetensors"), true, HostServices());
  ASSERT_TRUE(ref.ok());
  auto staged = gguf::StagedGguf::Create(path);
  ASSERT_TRUE(staged.ok()) << staged.status();
  for (const auto& be : Backends()) {
    Model file((*staged)->dir(), be->iface());
    ASSERT_TRUE(file.ok());
    const int64_t V = file.vocab();
    for (int i = 0;; ++i) {
      const std::string p = "p" + std::to_string(i) + ".";
      const oxi_weight_tensor* tok = ref->Find(p + "tokens");
      if (tok == nullptr) {
        EXPECT_GE(i, 3);
        break;
      }
      const int32_t* tp = static_cast<const int32_t*>(tok->data);
      const std::vector<int32_t> tokens(tp, tp + tok->shape[0]);
      const oxi_weight_tensor* greedy = ref->Find(p + "greedy");
      const oxi_weight_tensor* greedy_logits = ref->Find(p + "greedy_logits");
      ASSERT_TRUE(greedy != nullptr && greedy_logits != nullptr);
      const float* want = static_cast<const float*>(greedy_logits->data);
      file.Free(0);
      std::vector<float> logits = file.Feed(0, tokens);
      float worst = 0;
      std::vector<int32_t> got, expected;
      for (int64_t g = 0; g < greedy->shape[0]; ++g) {
        ASSERT_EQ(static_cast<int64_t>(logits.size()), V);
        worst = std::max(worst, MaxAbsDiff(logits.data(), want + g * V, V));
        const int32_t next = ArgMax(logits.data(), V);
        got.push_back(next);
        expected.push_back(static_cast<const int32_t*>(greedy->data)[g]);
        logits = file.Feed(0, {next});
      }
      EXPECT_LE(worst, kTolerance) << "p" << i << ", " << be->name();
      EXPECT_EQ(got, expected) << "p" << i << ", " << be->name();
      std::printf(
          "[ diff ] tiny_kquant.gguf p%d len %zu  max |gguf - transformers| %.2e  %s  (%s)\n", i,
          tokens.size(), worst, got == expected ? "greedy identical" : "greedy DIFFERS",
          be->name().c_str());
    }
  }
}

// By default the K-quant matrices are served as Q8_0 (a quarter of float32's
// bytes; the quantised kernels): each block within half a step of the file's
// values, everything else as with OXINFER_GGUF_KQUANT=f32, and the logits,
// teacher-forced on the exact run's greedy path, near the exact run's (the
// bound is relative to the logits' norm; Q8_0 weights quantise the
// activations too).
TEST(Gemma4GgufKQuants, ServedAsQ8_0ByDefaultNearTheExactValues) {
  auto staged = gguf::StagedGguf::Create(GgufPath("tiny_kquant.gguf"));
  ASSERT_TRUE(staged.ok()) << staged.status();
  EXPECT_GE(testing::ExpectKQuantsServedAsQ8_0((*staged)->dir(), HostServices()), 7);
  for (const auto& be : Backends()) {
    Model fast((*staged)->dir(), be->iface());
    std::optional<Model> exact;
    {
      testing::ScopedEnv env("OXINFER_GGUF_KQUANT", "f32");
      exact.emplace((*staged)->dir(), be->iface());
    }
    ASSERT_TRUE(fast.ok() && exact->ok());
    const int64_t V = fast.vocab();
    const std::vector<std::vector<int32_t>> prompts = {{2, 10, 20, 30}, {2, 7, 7, 7, 7, 100, 3}};
    for (size_t i = 0; i < prompts.size(); ++i) {
      std::vector<float> a = fast.Feed(0, prompts[i]), b = exact->Feed(0, prompts[i]);
      double worst = 0;
      int same = 0;
      const int steps = 16;
      for (int g = 0; g < steps; ++g) {
        worst = std::max(worst, testing::RelativeL2(a.data(), b.data(), V));
        const int32_t next = ArgMax(b.data(), V);
        same += ArgMax(a.data(), V) == next;
        a = fast.Feed(0, {next});
        b = exact->Feed(0, {next});
      }
      EXPECT_LE(worst, 0.15) << "p" << i << ", " << be->name();
      std::printf(
          "[ diff ] tiny_kquant.gguf as Q8_0 p%zu: |q8 - f32| / |f32| of the logits at most %.3f, "
          "argmax equal %d/%d (teacher-forced)  (%s)\n",
          i, worst, same, steps, be->name().c_str());
      fast.Free(0);
      exact->Free(0);
    }
  }
}

// Every tensor served from the file, under transformers' name and shape,
// holds the folder's values: exactly for bf16 / f32 files, within Q8_0's
// rounding (half a step of the block's scale, plus the scale's f16 rounding)
// for Q8_0 ones; and every tensor of the folder is served.
TEST(Gemma4GgufTensors, ServedTensorsHoldTheFoldersValues) {
  for (const char* name : {"e2b_like.bf16.gguf", "e2b_like.q8_0.gguf", "keqv_sharded.f32.gguf",
                           "text_only_saved.f32.gguf", "text_only_saved.q8_0.gguf"}) {
    auto staged = gguf::StagedGguf::Create(GgufPath(name));
    ASSERT_TRUE(staged.ok()) << staged.status();
    auto file = sdk::Weights::Open((*staged)->dir(), true, HostServices());
    const std::string fixture = std::string(name).substr(0, std::string(name).find('.'));
    auto folder = sdk::Weights::Open(FixtureDir(fixture), true, HostServices());
    ASSERT_TRUE(file.ok() && folder.ok());
    const bool lossy = std::string(name).find("q8_0") != std::string::npos;
    int64_t quantised = 0;
    for (int64_t i = 0; i < file->size(); ++i) {
      const oxi_weight_tensor& t = file->tensor(i);
      std::string hf = t.name;
      if (hf.rfind("model.", 0) == 0 && !folder->Has(hf)) {
        hf = "model.language_model." + hf.substr(6);
      }
      const oxi_weight_tensor* f = folder->Find(hf);
      ASSERT_NE(f, nullptr) << name << ": " << t.name << " is not in the folder";
      ASSERT_EQ(t.ndim, f->ndim) << t.name;
      for (int d = 0; d < t.ndim; ++d) ASSERT_EQ(t.shape[d], f->shape[d]) << t.name;
      const std::vector<float> a = testing::ServedValues(t), b = testing::ServedValues(*f);
      float worst = 0, scale = 0;
      for (size_t j = 0; j < a.size(); ++j) {
        worst = std::max(worst, std::fabs(a[j] - b[j]));
        scale = std::max(scale, std::fabs(b[j]));
      }
      if (t.dtype == OXI_DTYPE_Q8_0) ++quantised;
      // In Q8_0 files: Q8_0 matrices (the embedding tables too: the plugin
      // looks rows up in them as they are), F16 where a row is no whole
      // number of blocks; the norms and scalars stay float32.
      const std::string n = t.name;
      if (lossy && (n.size() >= 19 && (n.compare(n.size() - 19, 19, "embed_tokens.weight") == 0 ||
                                       n.find("embed_tokens_per_layer.weight") != n.npos))) {
        EXPECT_NE(t.dtype, OXI_DTYPE_F32) << name << ": " << n << " is not served as stored";
      }
      const float bound = !lossy || t.ndim < 2       ? 0.0f
                          : t.dtype == OXI_DTYPE_F16 ? scale * 1e-3f
                                                     : scale / 127.0f * 0.57f;
      EXPECT_LE(worst, bound) << name << ": " << t.name << " ("
                              << oxi_dtype_name(static_cast<oxi_dtype>(t.dtype)) << ")";
    }
    EXPECT_EQ(file->size(), folder->size()) << name << ": tensors left out or added";
    if (lossy) {
      EXPECT_GT(quantised, 10) << name;
    }
  }
}

// The ids `tokenizers` gives on the tokenizer.json the converter read
// (tokenizer_reference.json), from the tokenizer rebuilt from the file; and
// decodes equal to the engine's on that tokenizer.json.
TEST(Gemma4GgufTokenizer, EmbeddedTokenizerGivesTheIdsOfTheConvertersTokenizerJson) {
  const nlohmann::json reference =
      nlohmann::json::parse(ReadAll(GgufPath("tokenizer_reference.json")));
  int checked = 0;
  for (const auto& [fixture, cases] : reference.items()) {
    auto hf = tokenizer::Tokenizer::FromFile(GgufPath(fixture + ".tokenizer.json"));
    ASSERT_TRUE(hf.ok()) << hf.status();
    for (const char* type : {"bf16", "f32", "q8_0"}) {
      const std::string path = GgufPath(fixture + "." + type + ".gguf");
      if (!std::ifstream(path).good()) continue;
      auto c = gguf::OpenGgufCheckpoint(path, LoadMode::kMmap, /*tensors=*/false);
      ASSERT_TRUE(c.ok()) << c.status();
      auto ours = tokenizer::Tokenizer::FromJson((*c)->tokenizer_json);
      ASSERT_TRUE(ours.ok()) << ours.status();
      for (const auto& e : cases) {
        const std::string text = e["text"];
        const std::vector<int32_t> want = e["ids"];
        EXPECT_EQ((*ours)->Encode(text), want) << path << ": '" << text << "'";
        EXPECT_EQ((*hf)->Encode(text), want) << "engine on the tokenizer.json: '" << text << "'";
        EXPECT_EQ((*ours)->Decode(want), (*hf)->Decode(want)) << path;
        EXPECT_EQ((*ours)->Decode(want, true), (*hf)->Decode(want, true)) << path;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 40);
}

TEST(Gemma4GgufTokenizer, ChatTemplateBosAndStopTokensComeFromTheFile) {
  auto staged = gguf::StagedGguf::Create(GgufPath("e2b_like.bf16.gguf"));
  ASSERT_TRUE(staged.ok()) << staged.status();
  const nlohmann::json config =
      nlohmann::json::parse(ReadAll((*staged)->dir() + "/tokenizer_config.json"));
  EXPECT_NE(config.value("chat_template", "").find("<|turn>model\\n"), std::string::npos);
  EXPECT_EQ(config.value("chat_template", ""),
            ReadAll(FixtureDir("media") + "/vision_tiny/chat_template.jinja"));
  EXPECT_EQ(config.value("bos_token", ""), "<bos>");
  EXPECT_EQ(config.value("eos_token", ""), "<eos>");
  // <eos>, then llama.cpp's Gemma 4 end-of-generation tokens (<turn|> here):
  // the stop tokens of the checkpoint's generation_config.json within the cut
  // vocabulary (which has no <|tool_response>).
  const nlohmann::json generation =
      nlohmann::json::parse(ReadAll((*staged)->dir() + "/generation_config.json"));
  EXPECT_EQ(generation["eos_token_id"], nlohmann::json({1, 106})) << generation;
  EXPECT_EQ(generation["bos_token_id"], 2);
  const nlohmann::json model_config =
      nlohmann::json::parse(ReadAll((*staged)->dir() + "/config.json"));
  EXPECT_EQ(model_config["eos_token_id"], nlohmann::json({1, 106}));
  const std::string dir = (*staged)->dir();
  staged->reset();
  EXPECT_FALSE(std::ifstream(dir + "/config.json").good()) << "the staged folder stays";
}

// The config.json rebuilt from gemma4.* parses to the folder's geometry.
TEST(Gemma4GgufConfig, RebuiltConfigHasTheFoldersHyperparameters) {
  for (const char* name :
       {"e2b_like.bf16.gguf", "keqv_sharded.f32.gguf", "text_only_saved.f32.gguf"}) {
    auto c = gguf::OpenGgufCheckpoint(GgufPath(name), LoadMode::kMmap, /*tensors=*/false);
    ASSERT_TRUE(c.ok()) << c.status();
    const nlohmann::json got = nlohmann::json::parse((*c)->config_json);
    const std::string fixture = std::string(name).substr(0, std::string(name).find('.'));
    nlohmann::json want = nlohmann::json::parse(ReadAll(FixtureDir(fixture) + "/config.json"));
    if (want.contains("text_config")) want = want["text_config"];
    for (const char* key :
         {"vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers",
          "num_attention_heads", "num_key_value_heads", "head_dim", "sliding_window",
          "max_position_embeddings", "hidden_size_per_layer_input", "num_kv_shared_layers",
          "attention_k_eq_v", "use_double_wide_mlp", "final_logit_softcapping", "layer_types"}) {
      EXPECT_EQ(got[key], want[key]) << name << ": " << key;
    }
    EXPECT_NEAR(got["rms_norm_eps"].get<double>(), want["rms_norm_eps"].get<double>(), 1e-12);
    const nlohmann::json& rope = want["rope_parameters"]["full_attention"];
    EXPECT_EQ(got["rope_parameters"]["full_attention"]["partial_rotary_factor"],
              rope["partial_rotary_factor"])
        << name;
    EXPECT_EQ(got["rope_parameters"]["sliding_attention"]["rope_theta"],
              want["rope_parameters"]["sliding_attention"]["rope_theta"]);
  }
}

// A copy of a fixture with `from` replaced by `to` (same length keeps it well formed).
std::string Edited(const std::string& name, const std::string& from, const std::string& to) {
  std::string bytes = ReadAll(GgufPath(name));
  const size_t at = bytes.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) bytes.replace(at, from.size(), to);
  const std::string out = ::testing::TempDir() + "/edited_" + name;
  std::ofstream(out, std::ios::binary) << bytes;
  return out;
}

void ExpectRefused(const std::string& path, const std::string& message, bool tensors = true) {
  auto c = gguf::OpenGgufCheckpoint(path, LoadMode::kMmap, tensors);
  ASSERT_FALSE(c.ok()) << message;
  EXPECT_NE(c.status().message().find(path), std::string::npos) << c.status();
  EXPECT_NE(c.status().message().find(message), std::string::npos) << c.status();
}

TEST(Gemma4GgufErrors, UnsupportedOrBrokenFilesNameTheFileAndKey) {
  const std::string f = "e2b_like.bf16.gguf";
  for (const char* key :
       {"gemma4.attention.sliding_window_pattern", "gemma4.attention.shared_kv_layers",
        "gemma4.attention.key_length_swa", "gemma4.rope.freq_base_swa",
        "gemma4.feed_forward_length", "gemma4.attention.head_count_kv"}) {
    std::string renamed = key;
    renamed[renamed.size() - 2] = 'X';
    ExpectRefused(Edited(f, key, renamed), std::string(key) + ": missing", false);
  }
  // Another tokenizer model (the string value after the key: u32 type 8, u64 length 6).
  static const char kModel[] = "tokenizer.ggml.model\x08\0\0\0\x06\0\0\0\0\0\0\0";
  const std::string model(kModel, sizeof kModel - 1);
  ExpectRefused(Edited(f, model + "gemma4", model + "gemmaX"),
                "tokenizer.ggml.model: 'gemmaX' is not a tokenizer", false);
  // A tensor the mapping does not know: refused when the weights open.
  const std::string path = Edited(f, "blk.0.inp_gate", "blk.0.inp_gatX");
  EXPECT_TRUE(gguf::OpenGgufCheckpoint(path, LoadMode::kMmap, /*tensors=*/false).ok());
  ExpectRefused(path,
                "tensor 'blk.0.inp_gatX.weight' is not one of llama.cpp's gemma4 text tensors");
  // Without rope_freqs the full layers' rotated share is unknown.
  ExpectRefused(Edited(f, "rope_freqs.weight", "rope_freqs.weigXt"),
                "no tensor 'rope_freqs.weight'", false);
  // Truncated: the reader's own error, naming the file.
  const std::string bytes = ReadAll(GgufPath("e2b_like.q8_0.gguf"));
  const std::string cut = ::testing::TempDir() + "/truncated.gguf";
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  ExpectRefused(cut, "");
}

}  // namespace
}  // namespace gemma4_test
}  // namespace oxinfer
