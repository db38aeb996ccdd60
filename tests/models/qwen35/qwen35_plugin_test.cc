// The Qwen 3.5 plugin at its ABI: probe, open (sharded checkpoints, progress,
// refusals), what info() reports, embedding rows as input (on every backend
// spec), and the messages of refused forwards (on the first backend spec).
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "oxinfer/sdk/common.hpp"
#include "tests/models/qwen35/qwen35_test_support.h"

namespace oxinfer {
namespace qwen35 {
namespace test {
namespace {

const oxi_backend_iface* Backend() { return Backends().front()->iface(); }

std::string ReadText(const std::string& path) {
  auto t = sdk::ReadFile(path, uint64_t{1} << 20, Host());
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? *t : std::string();
}

// The checkpoint's token embeddings of `tokens`, as f32 rows.
std::vector<float> EmbeddingRows(const std::string& fixture, const std::vector<int32_t>& tokens) {
  auto w = sdk::Weights::Open(FixtureDir(fixture) + "/model.safetensors", true, Host());
  EXPECT_TRUE(w.ok()) << w.status().message();
  if (!w.ok()) return {};
  const oxi_weight_tensor* t = w->Find("model.language_model.embed_tokens.weight");
  EXPECT_NE(t, nullptr);
  if (t == nullptr) return {};
  const int64_t H = t->shape[1];
  std::vector<float> rows;
  for (int32_t id : tokens) {
    for (int64_t c = 0; c < H; ++c) rows.push_back(sdk::LoadFloat(t->data, t->dtype, id * H + c));
  }
  return rows;
}

TEST(Qwen35Plugin, ProbeAcceptsTheFixturesAndRefusesOthers) {
  const oxi_model_iface* m = ModelIface();
  ASSERT_NE(m, nullptr);
  char reason[512] = {0};
  for (const char* f : kFixtures) {
    const std::string text = ReadText(FixtureDir(f) + "/config.json");
    EXPECT_GT(m->probe(FixtureDir(f).c_str(), text.c_str(), reason, sizeof reason), 0) << reason;
  }
  EXPECT_EQ(m->probe("/nonexistent", "{\"model_type\": \"gemma4\"}", reason, sizeof reason), 0);
  EXPECT_NE(std::string(reason).find("gemma4"), std::string::npos) << reason;
  EXPECT_EQ(m->probe("/nonexistent", "not json", reason, sizeof reason), 0);
  EXPECT_EQ(m->probe("/nonexistent", "{\"model_type\": \"qwen3_5_moe\"}", reason, sizeof reason),
            0);
  EXPECT_NE(std::string(reason).find("MoE"), std::string::npos) << reason;
}

TEST(Qwen35Plugin, InfoDescribesTheCheckpoint) {
  Reference ref("tiny_tied");
  OpenOptions o;
  o.max_sequences = 3;
  TestModel m(FixtureDir("tiny_tied"), Backend(), o);
  ASSERT_TRUE(m.ok()) << m.open_error();
  const oxi_model_info& i = m.info();
  const int32_t V = static_cast<int32_t>(ref.vocab());
  EXPECT_STREQ(i.family, "qwen35");
  EXPECT_EQ(i.capabilities, OXI_MODEL_TEXT | OXI_MODEL_EMBEDDING_INPUT);
  EXPECT_EQ(i.vocab_size, V);
  EXPECT_EQ(i.hidden_size, 64);
  EXPECT_EQ(i.context_length, 4096);  // max_position_embeddings
  EXPECT_EQ(i.max_sequences, 3);
  EXPECT_EQ(i.can_rewind, 0);
  ASSERT_NE(i.default_chat_template, nullptr);
  EXPECT_NE(std::string(i.default_chat_template).find("<|im_start|>"), std::string::npos);
  ASSERT_EQ(i.n_stop_tokens, 1);
  EXPECT_EQ(i.stop_tokens[0], V - 1);
  std::vector<std::pair<std::string, int32_t>> specials;
  for (int32_t k = 0; k < i.n_special_tokens; ++k) {
    specials.emplace_back(i.special_tokens[k].role, i.special_tokens[k].id);
  }
  const std::vector<std::pair<std::string, int32_t>> want = {
      {"image", V - 4}, {"video", V - 3}, {"boi", V - 6}, {"eoi", V - 5}, {"eos", V - 1}};
  EXPECT_EQ(specials, want);
  EXPECT_STREQ(i.reasoning_start, "<think>");
  EXPECT_STREQ(i.reasoning_end, "</think>");
  o.context_length = 1000;
  TestModel asked(FixtureDir("tiny_tied"), Backend(), o);
  ASSERT_TRUE(asked.ok());
  EXPECT_EQ(asked.info().context_length, 1000);
}

TEST(Qwen35Plugin, ReportsLoadingProgress) {
  const oxi_model_iface* m = ModelIface();
  ASSERT_NE(m, nullptr);
  const std::string dir = FixtureDir("tiny_tied");
  oxi_model_open_params p{};
  p.struct_size = sizeof(p);
  p.model_dir = dir.c_str();
  p.backend = Backend();
  std::vector<double> seen;
  p.progress = [](void* ctx, double done, double total, const char*) {
    static_cast<std::vector<double>*>(ctx)->push_back(done / total);
  };
  p.progress_ctx = &seen;
  oxi_model* model = nullptr;
  char err[512] = {0};
  ASSERT_EQ(m->open(&p, &model, err, sizeof err), OXI_OK) << err;
  m->close(model);
  ASSERT_FALSE(seen.empty());
  EXPECT_DOUBLE_EQ(seen.back(), 1.0);
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
}

// A sharded checkpoint (model.safetensors.index.json + two shards, written here
// from tiny_tied's tensors) loads and gives the same logits.
TEST(Qwen35Plugin, ShardedCheckpoint) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  ASSERT_NE(tmp, nullptr);
  const std::string src = FixtureDir("tiny_tied");
  const std::string dir = std::string(tmp) + "/tiny_tied_sharded";
  ::mkdir(dir.c_str(), 0755);
  std::ofstream(dir + "/config.json") << ReadText(src + "/config.json");
  auto files = sdk::Weights::Open(src + "/model.safetensors", true, Host());
  ASSERT_TRUE(files.ok()) << files.status().message();
  nlohmann::json index = {{"metadata", nlohmann::json::object()},
                          {"weight_map", nlohmann::json::object()}};
  for (int s = 0; s < 2; ++s) {
    const std::string name = "model-0000" + std::to_string(s + 1) + "-of-00002.safetensors";
    nlohmann::json header = nlohmann::json::object();
    std::vector<const oxi_weight_tensor*> mine;
    uint64_t off = 0;
    for (int64_t i = s; i < files->size(); i += 2) {
      const oxi_weight_tensor& t = files->tensor(i);
      ASSERT_TRUE(t.dtype == OXI_DTYPE_F32 || t.dtype == OXI_DTYPE_BF16) << t.name;
      std::vector<int64_t> shape(t.shape, t.shape + t.ndim);
      header[t.name] = {{"dtype", t.dtype == OXI_DTYPE_F32 ? "F32" : "BF16"},
                        {"shape", shape},
                        {"data_offsets", {off, off + t.size}}};
      off += t.size;
      index["weight_map"][t.name] = name;
      mine.push_back(&t);
    }
    const std::string h = header.dump();
    const uint64_t n = h.size();
    std::ofstream out(dir + "/" + name, std::ios::binary);
    for (int b = 0; b < 8; ++b) out.put(static_cast<char>((n >> (8 * b)) & 0xff));
    out << h;
    for (const oxi_weight_tensor* t : mine) {
      out.write(static_cast<const char*>(t->data), static_cast<std::streamsize>(t->size));
    }
  }
  std::ofstream(dir + "/model.safetensors.index.json") << index.dump(2);

  Reference ref("tiny_tied");
  const std::vector<int32_t> tokens = ref.Tokens(1);
  const std::vector<float> logits = ref.Logits(1);
  TestModel m(dir, Backend());
  ASSERT_TRUE(m.ok()) << m.open_error();
  const std::vector<float> out = m.Last(tokens);
  EXPECT_LE(MaxAbsDiff(out.data(), logits.data() + (tokens.size() - 1) * ref.vocab(), ref.vocab()),
            kTol);
}

TEST(Qwen35Plugin, OpenRefusals) {
  TestModel missing("/nonexistent/qwen", Backend());
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(missing.open_error().find("config.json"), std::string::npos) << missing.open_error();
  TestModel no_backend(FixtureDir("tiny_tied"), nullptr);
  EXPECT_FALSE(no_backend.ok());
  EXPECT_NE(no_backend.open_error().find("backend"), std::string::npos) << no_backend.open_error();
  OpenOptions o;
  o.weight_dtype = OXI_DTYPE_I8;
  TestModel bad_dtype(FixtureDir("tiny_tied"), Backend(), o);
  EXPECT_FALSE(bad_dtype.ok());
  EXPECT_NE(bad_dtype.open_error().find("i8"), std::string::npos) << bad_dtype.open_error();
}

// Embedding rows in place of tokens (all positions, or where a mask says)
// give the token input's logits when the rows are the token embeddings (on
// every backend spec).
TEST(Qwen35Plugin, EmbeddingRowsEqualTokenInput) {
  for (const auto& be : Backends()) {
    for (const char* f : kFixtures) {
      Reference ref(f);
      const std::vector<int32_t> tokens = ref.Tokens(3);
      const std::vector<float> rows = EmbeddingRows(f, tokens);
      const int64_t V = ref.vocab(), n = tokens.size();
      OpenOptions o;
      o.max_sequences = 3;
      TestModel m(FixtureDir(f), be->iface(), o);
      ASSERT_TRUE(m.ok()) << m.open_error();
      std::vector<Entry> e(3);
      e[0].seq = 0;
      e[0].tokens = tokens;
      e[1].seq = 1;
      e[1].embeddings = rows;
      e[1].n = n;  // no tokens at all
      e[2].seq = 2;
      e[2].tokens = tokens;
      e[2].embeddings = rows;
      for (int64_t i = 0; i < n; ++i) e[2].mask.push_back(i % 3 == 1);
      for (Entry& x : e) x.logits = OXI_LOGITS_ALL;
      const Result r = m.Forward(&e);
      ASSERT_TRUE(r.ok()) << r.message;
      const std::vector<float> want = ref.Logits(3);
      EXPECT_LE(MaxAbsDiff(e[0].out.data(), want.data(), n * V), kTol) << f << ", " << be->name();
      EXPECT_LE(MaxAbsDiff(e[1].out.data(), e[0].out.data(), n * V), 1e-5f)
          << f << ", " << be->name();
      EXPECT_LE(MaxAbsDiff(e[2].out.data(), e[0].out.data(), n * V), 1e-5f)
          << f << ", " << be->name();
    }
  }
}

// Embedding rows that are not token embeddings (as a vision tower gives
// them) against transformers' inputs_embeds: every position, in one forward
// and one position at a time, on every backend spec.
TEST(Qwen35Plugin, EmbeddingRowsMatchTransformersInputsEmbeds) {
  for (const auto& be : Backends()) {
    for (const char* f : kFixtures) {
      Reference ref(f, "embeds");
      ASSERT_TRUE(ref.ok());
      const std::vector<int32_t> tokens = ref.Ints("tokens");
      const std::vector<float> rows = ref.Floats("embeddings");
      const std::vector<float> want = ref.Floats("logits");
      const int64_t n = tokens.size(), H = rows.size() / n, V = want.size() / n;
      std::vector<uint8_t> mask(n);
      auto w = sdk::Weights::Open(FixtureDir(f) + "/embeds.safetensors", true, Host());
      ASSERT_TRUE(w.ok());
      const oxi_weight_tensor* m8 = w->Find("mask");
      ASSERT_TRUE(m8 != nullptr && m8->size == static_cast<uint64_t>(n));
      std::memcpy(mask.data(), m8->data, n);
      TestModel whole(FixtureDir(f), be->iface()), steps(FixtureDir(f), be->iface());
      ASSERT_TRUE(whole.ok()) << whole.open_error();
      std::vector<Entry> e(1);
      e[0].tokens = tokens;
      e[0].embeddings = rows;
      e[0].mask = mask;
      e[0].logits = OXI_LOGITS_ALL;
      const Result r = whole.Forward(&e);
      ASSERT_TRUE(r.ok()) << r.message;
      const float d_whole = MaxAbsDiff(e[0].out.data(), want.data(), n * V);
      float d_steps = 0.0f;
      for (int64_t t = 0; t < n; ++t) {
        std::vector<Entry> one(1);
        if (mask[t]) {
          one[0].embeddings.assign(rows.begin() + t * H, rows.begin() + (t + 1) * H);
          one[0].n = 1;
        } else {
          one[0].tokens = {tokens[t]};
        }
        ASSERT_TRUE(steps.Forward(&one).ok());
        d_steps = std::max(d_steps, MaxAbsDiff(one[0].out.data(), want.data() + t * V, V));
      }
      EXPECT_LE(d_whole, kTol) << f << ", " << be->name();
      EXPECT_LE(d_steps, kTol) << f << ", " << be->name();
      std::printf(
          "[ diff ] %-14s inputs_embeds: one forward %.2e  one position at a time %.2e  (%s)\n", f,
          d_whole, d_steps, be->name().c_str());
    }
  }
}

TEST(Qwen35Plugin, RefusedForwardsSayWhyAndLeaveTheSequence) {
  Reference ref("tiny_tied");
  const int64_t V = ref.vocab();
  OpenOptions o;
  o.max_sequences = 2;
  o.context_length = 100;
  TestModel m(FixtureDir("tiny_tied"), Backend(), o);
  ASSERT_TRUE(m.ok()) << m.open_error();
  const std::vector<int32_t> p1 = ref.Tokens(1);
  m.Last(p1, 0);
  auto expect = [&](std::vector<Entry> e, int32_t code, const std::string& words) {
    const Result r = m.Forward(&e);
    EXPECT_EQ(r.code, code) << r.message;
    EXPECT_NE(r.message.find(words), std::string::npos) << r.message;
  };
  Entry bad_token;
  bad_token.tokens = {static_cast<int32_t>(V)};
  expect({bad_token}, OXI_INVALID_ARGUMENT, "token id");
  bad_token.tokens = {-1};
  expect({bad_token}, OXI_INVALID_ARGUMENT, "token id");
  Entry too_long;
  too_long.tokens.assign(92, 1);  // 9 + 92 > 100
  expect({too_long}, OXI_OUT_OF_RANGE, "context");
  Entry bad_seq;
  bad_seq.seq = 2;
  bad_seq.tokens = {1};
  expect({bad_seq}, OXI_INVALID_ARGUMENT, "sequence id");
  bad_seq.seq = -1;
  expect({bad_seq}, OXI_INVALID_ARGUMENT, "sequence id");
  Entry twice;
  twice.tokens = {1};
  expect({twice, twice}, OXI_INVALID_ARGUMENT, "twice");
  Entry jump;
  jump.tokens = {1, 2};
  jump.positions = {9, 11};
  expect({jump}, OXI_INVALID_ARGUMENT, "consecutive");
  Entry empty;
  expect({empty}, OXI_INVALID_ARGUMENT, "no positions");
  // Sequence 0 is untouched: explicit consecutive positions continue it as
  // transformers does.
  const std::vector<int32_t> greedy = ref.Ints(Reference::P(1, "greedy"));
  const std::vector<float> glogits = ref.Floats(Reference::P(1, "greedy_logits"));
  std::vector<Entry> next(1);
  next[0].tokens = {greedy[0]};
  next[0].positions = {9};
  const Result r = m.Forward(&next);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_LE(MaxAbsDiff(next[0].out.data(), glogits.data() + V, V), kTol);
  // Up to the context exactly.
  std::vector<Entry> fill(1);
  fill[0].tokens.assign(90, 1);
  EXPECT_TRUE(m.Forward(&fill).ok());
  fill[0].tokens = {1};
  EXPECT_EQ(m.Forward(&fill).code, OXI_OUT_OF_RANGE);
}

}  // namespace
}  // namespace test
}  // namespace qwen35
}  // namespace oxinfer
