// The Gemma 4 plugin's model ABI surface: probe, open, info, and the errors
// of forward / seq_truncate / seq_copy, each with a message naming the cause.
#include <string>
#include <vector>

#include "core/host_services.h"
#include "gtest/gtest.h"
#include "oxinfer/sdk/common.hpp"
#include "tests/models/gemma4/gemma4_test_util.h"

namespace oxinfer {
namespace gemma4_test {
namespace {

const char* const kFixtures[] = {"e2b_like", "keqv_sharded", "dense_31b_like", "text_only_saved"};

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(Gemma4Probe, AcceptsFixturesAndRefusesOtherModels) {
  ASSERT_NE(ModelIface(), nullptr);
  char reason[512] = {};
  for (const char* f : kFixtures) {
    auto text = sdk::ReadFile(FixtureDir(f) + "/config.json", uint64_t{1} << 20, HostServices());
    ASSERT_TRUE(text.ok()) << text.status().message();
    EXPECT_GT(ModelIface()->probe(f, text->c_str(), reason, sizeof reason), 0)
        << f << ": " << reason;
    // Without the text, the plugin reads config.json itself.
    EXPECT_GT(ModelIface()->probe(FixtureDir(f).c_str(), "", reason, sizeof reason), 0)
        << f << ": " << reason;
  }
  struct Case {
    const char* json;
    const char* expect;
  } cases[] = {
      {R"({"model_type": "gemma4_unified", "text_config": {"model_type": "gemma4_unified_text"}})",
       "unified"},
      {R"({"model_type": "gemma4", "text_config": {"model_type": "gemma4_text",
           "enable_moe_block": true, "num_experts": 128}})",
       "MoE"},
      {R"({"model_type": "qwen3_5"})", "not a Gemma 4"},
      {R"({"model_type": "gemma4_assistant"})", "drafter"},
      {"not json", "config.json"},
  };
  for (const Case& c : cases) {
    reason[0] = 0;
    EXPECT_EQ(ModelIface()->probe("/x", c.json, reason, sizeof reason), 0) << c.json;
    EXPECT_TRUE(Contains(reason, c.expect)) << reason;
  }
}

TEST(Gemma4Open, RefusesMissingBackendAndBadOptions) {
  ASSERT_NE(ModelIface(), nullptr);
  const std::string dir = FixtureDir("e2b_like");
  oxi_model_open_params p = {};
  p.struct_size = sizeof p;
  p.model_dir = dir.c_str();
  oxi_model* m = nullptr;
  char error[512] = {};
  EXPECT_NE(ModelIface()->open(&p, &m, error, sizeof error), OXI_OK);
  EXPECT_EQ(m, nullptr);
  EXPECT_TRUE(Contains(error, "backend")) << error;

  const auto backends = Backends();
  ASSERT_FALSE(backends.empty());
  p.backend = backends[0]->iface();
  p.weight_dtype = OXI_DTYPE_I32;
  EXPECT_EQ(ModelIface()->open(&p, &m, error, sizeof error), OXI_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(error, "weight type")) << error;
  p.weight_dtype = OXI_DTYPE_INVALID;
  const std::string missing = dir + "/no_such_folder";
  p.model_dir = missing.c_str();
  EXPECT_NE(ModelIface()->open(&p, &m, error, sizeof error), OXI_OK);
  EXPECT_TRUE(Contains(error, "no_such_folder")) << error;
}

TEST(Gemma4Info, DescribesTheCheckpoint) {
  const auto backends = Backends();
  ASSERT_FALSE(backends.empty());
  OpenOptions o;
  o.max_sequences = 3;
  Model m(FixtureDir("e2b_like"), backends[0]->iface(), o);
  ASSERT_TRUE(m.ok());
  const oxi_model_info& i = m.info();
  EXPECT_EQ(std::string(i.family), "gemma4");
  EXPECT_EQ(i.capabilities, OXI_MODEL_TEXT | OXI_MODEL_EMBEDDING_INPUT);
  EXPECT_EQ(i.vocab_size, 256);
  EXPECT_EQ(i.hidden_size, 64);
  EXPECT_EQ(i.context_length, 131072);  // max_position_embeddings
  EXPECT_EQ(i.max_sequences, 3);
  EXPECT_EQ(i.can_rewind, 1);
  ASSERT_NE(i.default_chat_template, nullptr);
  EXPECT_TRUE(Contains(i.default_chat_template, "<|turn>")) << i.default_chat_template;
  ASSERT_EQ(i.n_stop_tokens, 2);  // eos_token_id [1, 106] of the wrapper, 1 of the text part
  EXPECT_EQ(i.stop_tokens[0], 1);
  EXPECT_EQ(i.stop_tokens[1], 106);
  std::vector<std::pair<std::string, int32_t>> specials;
  for (int32_t k = 0; k < i.n_special_tokens; ++k) {
    specials.emplace_back(i.special_tokens[k].role, i.special_tokens[k].id);
  }
  const std::vector<std::pair<std::string, int32_t>> expect = {
      {"eos", 1},        {"bos", 2},      {"pad", 0},      {"image", 258880}, {"audio", 258881},
      {"video", 258884}, {"boi", 255999}, {"eoi", 258882}, {"boa", 256000},   {"eoa", 258883}};
  EXPECT_EQ(specials, expect);
  EXPECT_EQ(std::string(i.reasoning_start), "<|channel>");
  EXPECT_EQ(std::string(i.reasoning_end), "<channel|>");

  OpenOptions small;
  small.context_length = 12;
  Model c(FixtureDir("e2b_like"), backends[0]->iface(), small);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c.info().context_length, 12);
}

TEST(Gemma4Forward, ErrorsNameTheirCause) {
  const auto backends = Backends();
  ASSERT_FALSE(backends.empty());
  OpenOptions o;
  o.max_sequences = 2;
  o.context_length = 12;
  Model m(FixtureDir("e2b_like"), backends[0]->iface(), o);
  ASSERT_TRUE(m.ok());
  const int V = m.vocab();
  std::vector<float> logits(V);
  std::string error;
  const std::vector<int32_t> toks = {2, 7, 9, 11};

  // Explicit positions: accepted where they continue the sequence, refused otherwise.
  const int32_t good_pos[4] = {0, 1, 2, 3};
  oxi_batch_entry e = TokenEntry(0, toks.data(), 4, OXI_LOGITS_LAST, logits.data());
  e.positions = good_pos;
  ASSERT_EQ(m.Forward({e}, &error), OXI_OK) << error;
  const std::vector<float> expect = logits;
  m.Free(0);
  const int32_t bad_pos[4] = {0, 1, 5, 6};
  e.positions = bad_pos;
  EXPECT_EQ(m.Forward({e}, &error), OXI_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(error, "consecutive")) << error;
  e.positions = nullptr;
  ASSERT_EQ(m.Forward({e}, &error), OXI_OK) << error;  // nothing was appended by the refusal
  EXPECT_EQ(MaxAbsDiff(logits.data(), expect.data(), V), 0.0f);

  // Context: 4 + 9 > 12.
  std::vector<int32_t> nine(9, 5);
  EXPECT_EQ(m.Forward({TokenEntry(0, nine.data(), 9, OXI_LOGITS_NONE, nullptr)}, &error),
            OXI_OUT_OF_RANGE);
  EXPECT_TRUE(Contains(error, "context")) << error;

  // Checked by the adapter before the model sees them.
  const int32_t oov = 100000;
  EXPECT_EQ(m.Forward({TokenEntry(1, &oov, 1, OXI_LOGITS_LAST, logits.data())}, &error),
            OXI_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(error, "100000")) << error;
  EXPECT_EQ(m.Forward({TokenEntry(2, toks.data(), 1, OXI_LOGITS_LAST, logits.data())}, &error),
            OXI_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(error, "sequence id 2")) << error;
  EXPECT_EQ(m.Forward({TokenEntry(1, toks.data(), 1, OXI_LOGITS_NONE, nullptr),
                       TokenEntry(1, toks.data(), 1, OXI_LOGITS_NONE, nullptr)},
                      &error),
            OXI_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(error, "twice")) << error;
  EXPECT_EQ(m.Forward({TokenEntry(1, toks.data(), 1, OXI_LOGITS_LAST, nullptr)}, &error),
            OXI_INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(error, "buffer")) << error;

  // Sequence operations.
  EXPECT_EQ(m.Copy(0, 1, 5, &error), OXI_OUT_OF_RANGE);
  EXPECT_TRUE(Contains(error, "holds 4 positions")) << error;
  EXPECT_EQ(m.Copy(0, 0, 1, &error), OXI_INVALID_ARGUMENT);
  EXPECT_EQ(m.Truncate(0, -1, &error), OXI_INVALID_ARGUMENT);
  EXPECT_EQ(m.Truncate(0, 10, &error), OXI_OK);  // beyond the length: nothing to drop

  // The sequence is intact after all of this. The re-fed token goes through
  // the one-row (GEMV) kernels where the first pass may have used the prefill
  // GEMM, so SIMD backends differ by summation order (~3e-6), not by state.
  m.Truncate(0, 3);
  std::vector<float> again = m.Feed(0, {toks[3]});
  ASSERT_EQ(static_cast<int>(again.size()), V);
  EXPECT_LT(MaxAbsDiff(again.data(), expect.data(), V), 1e-5f);
}

}  // namespace
}  // namespace gemma4_test
}  // namespace oxinfer
