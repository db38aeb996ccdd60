// Several sequences in one forward (model ABI 2) on every backend spec of the
// command line: batched entries give what each gives alone, a sequence can be
// prefilled while others decode, copied then diverge, freed and reused;
// DeltaNet states cannot be rewound, so truncation and copies of a prefix are
// refused with a message; KV caches grow past their first allocation.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "gtest/gtest.h"
#include "tests/models/qwen35/qwen35_test_support.h"

namespace oxinfer {
namespace qwen35 {
namespace test {
namespace {

constexpr float kBatchTol = 1e-5f;  // batched vs alone: only the matmul row blocking differs

class Qwen35Batch : public ::testing::TestWithParam<const char*> {
 protected:
  std::string dir() const { return FixtureDir(GetParam()); }
  OpenOptions Sequences(int32_t n, int32_t prefill_chunk = 0) const {
    OpenOptions o;
    o.max_sequences = n;
    o.prefill_chunk = prefill_chunk;
    return o;
  }
};

// The logits of a prompt's last position, then of each greedy step, alone.
std::vector<std::vector<float>> AloneGreedy(const std::string& dir, const oxi_backend_iface* be,
                                            const std::vector<int32_t>& prompt, int steps) {
  TestModel m(dir, be);
  EXPECT_TRUE(m.ok()) << m.open_error();
  std::vector<std::vector<float>> out = {m.Last(prompt)};
  for (int j = 1; j < steps; ++j) {
    const int32_t next = Argmax(out.back().data(), m.vocab());
    out.push_back(m.Last(&next, 1));
  }
  return out;
}

// Two, then three sequences of different lengths prefilled in one forward and
// decoded greedily together: the logits of each alone, transformers' tokens.
TEST_P(Qwen35Batch, SequencesTogetherMatchEachAlone) {
  Reference ref(GetParam());
  ASSERT_TRUE(ref.ok());
  const int64_t V = ref.vocab();
  for (const auto& be : Backends()) {
    for (const std::vector<int>& prompts : {std::vector<int>{0, 3}, std::vector<int>{1, 2, 4}}) {
      const int32_t n = static_cast<int32_t>(prompts.size());
      TestModel m(dir(), be->iface(), Sequences(n));
      ASSERT_TRUE(m.ok()) << m.open_error();
      std::vector<std::vector<std::vector<float>>> alone;
      std::vector<Entry> e(n);
      for (int32_t s = 0; s < n; ++s) {
        alone.push_back(AloneGreedy(dir(), be->iface(), ref.Tokens(prompts[s]), kGreedy));
        e[s].seq = s;
        e[s].tokens = ref.Tokens(prompts[s]);
      }
      float d_alone = 0.0f, d_ref = 0.0f;
      for (int j = 0; j < kGreedy; ++j) {
        const Result r = m.Forward(&e);
        ASSERT_TRUE(r.ok()) << r.message;
        for (int32_t s = 0; s < n; ++s) {
          const std::vector<float> want = ref.Floats(Reference::P(prompts[s], "greedy_logits"));
          const std::vector<int32_t> greedy = ref.Ints(Reference::P(prompts[s], "greedy"));
          d_alone = std::max(d_alone, MaxAbsDiff(e[s].out.data(), alone[s][j].data(), V));
          d_ref = std::max(d_ref, MaxAbsDiff(e[s].out.data(), want.data() + j * V, V));
          const int32_t next = Argmax(e[s].out.data(), V);
          EXPECT_EQ(next, greedy[j]) << "sequence " << s << " step " << j << ", " << be->name();
          e[s].tokens = {next};
        }
      }
      EXPECT_LE(d_alone, kBatchTol) << n << " sequences, " << be->name();
      EXPECT_LE(d_ref, kTol) << n << " sequences, " << be->name();
      std::printf(
          "[ diff ] %-14s %d sequences together: vs alone %.2e  vs transformers %.2e  (%s)\n",
          GetParam(), n, d_alone, d_ref, be->name().c_str());
    }
  }
}

// One sequence decodes while another prefills a long prompt in the same
// forward, split into prefill blocks of 50 rows.
TEST_P(Qwen35Batch, PrefillWhileDecoding) {
  Reference ref(GetParam());
  ASSERT_TRUE(ref.ok());
  const int64_t V = ref.vocab();
  for (const auto& be : Backends()) {
    const auto alone = AloneGreedy(dir(), be->iface(), ref.Tokens(1), 3);
    TestModel m(dir(), be->iface(), Sequences(2, 50));
    ASSERT_TRUE(m.ok()) << m.open_error();
    std::vector<float> first = m.Last(ref.Tokens(1), 0);
    std::vector<Entry> e(2);
    e[0].seq = 0;
    e[0].tokens = {Argmax(first.data(), V)};
    e[1].seq = 1;
    e[1].tokens = ref.Tokens(4);
    const Result r = m.Forward(&e);
    ASSERT_TRUE(r.ok()) << r.message;
    const std::vector<float> p4 = ref.Logits(4);
    const float d0 = MaxAbsDiff(e[0].out.data(), alone[1].data(), V);
    const float d1 = MaxAbsDiff(e[1].out.data(), p4.data() + (p4.size() / V - 1) * V, V);
    EXPECT_LE(d0, kBatchTol) << be->name();
    EXPECT_LE(d1, kTol) << be->name();
    // Both continue: the decoding one as alone.
    e.resize(1);
    e[0].tokens = {Argmax(e[0].out.data(), V)};
    ASSERT_TRUE(m.Forward(&e).ok());
    EXPECT_LE(MaxAbsDiff(e[0].out.data(), alone[2].data(), V), kBatchTol) << be->name();
    std::printf("[ diff ] %-14s decode beside a 140-token prefill: %.2e / %.2e  (%s)\n", GetParam(),
                d0, d1, be->name().c_str());
  }
}

// seq_copy of a whole sequence, then both continue differently.
TEST_P(Qwen35Batch, CopyThenDiverge) {
  Reference ref(GetParam());
  ASSERT_TRUE(ref.ok());
  const int64_t V = ref.vocab();
  const std::vector<int32_t> prompt = ref.Tokens(2);
  const int32_t a = 3, b = 11;
  for (const auto& be : Backends()) {
    TestModel m(dir(), be->iface(), Sequences(3));
    ASSERT_TRUE(m.ok()) << m.open_error();
    m.Last(prompt, 0);
    m.Last(ref.Tokens(1), 2);  // a destination that holds something is emptied first
    ASSERT_TRUE(m.Copy(0, 1, static_cast<int64_t>(prompt.size())).ok());
    ASSERT_TRUE(m.Copy(0, 2, static_cast<int64_t>(prompt.size())).ok());
    std::vector<Entry> e(3);
    e[0].seq = 0;
    e[0].tokens = {a};
    e[1].seq = 1;
    e[1].tokens = {b};
    e[2].seq = 2;
    e[2].tokens = {b};
    const Result r = m.Forward(&e);
    ASSERT_TRUE(r.ok()) << r.message;
    for (int32_t s = 0; s < 3; ++s) {
      std::vector<int32_t> whole = prompt;
      whole.push_back(s == 0 ? a : b);
      TestModel alone(dir(), be->iface());
      const std::vector<float> want = alone.Last(whole);
      EXPECT_LE(MaxAbsDiff(e[s].out.data(), want.data(), V), kBatchTol)
          << "sequence " << s << ", " << be->name();
    }
  }
}

TEST_P(Qwen35Batch, CopyOfAPrefixIsRefused) {
  Reference ref(GetParam());
  ASSERT_TRUE(ref.ok());
  const auto& be = Backends().front();
  TestModel m(dir(), be->iface(), Sequences(2));
  ASSERT_TRUE(m.ok()) << m.open_error();
  m.Last(ref.Tokens(2), 0);
  Result r = m.Copy(0, 1, 10);
  EXPECT_EQ(r.code, OXI_FAILED_PRECONDITION);
  EXPECT_NE(r.message.find("cannot be rewound"), std::string::npos) << r.message;
  r = m.Copy(0, 1, 65);
  EXPECT_EQ(r.code, OXI_FAILED_PRECONDITION) << r.message;
  // Nothing: the destination is empty and starts afresh.
  ASSERT_TRUE(m.Copy(0, 1, 0).ok());
  const std::vector<int32_t> p1 = ref.Tokens(1);
  const std::vector<float> want = ref.Logits(1);
  const std::vector<float> got = m.Last(p1, 1);
  EXPECT_LE(MaxAbsDiff(got.data(), want.data() + (p1.size() - 1) * ref.vocab(), ref.vocab()), kTol);
  EXPECT_EQ(m.Copy(0, 0, 64).code, OXI_INVALID_ARGUMENT);
  EXPECT_EQ(m.Copy(0, 2, 64).code, OXI_INVALID_ARGUMENT);
}

// A freed (or truncated to 0) sequence starts from zero states.
TEST_P(Qwen35Batch, FreeAndTruncateToZeroThenReuse) {
  Reference ref(GetParam());
  ASSERT_TRUE(ref.ok());
  const int64_t V = ref.vocab();
  const std::vector<int32_t> p1 = ref.Tokens(1);
  const std::vector<float> want = ref.Logits(1);
  for (const auto& be : Backends()) {
    TestModel m(dir(), be->iface(), Sequences(2));
    ASSERT_TRUE(m.ok()) << m.open_error();
    m.Last(ref.Tokens(4), 0);
    m.Last(ref.Tokens(3), 1);
    m.Free(0);
    ASSERT_TRUE(m.Truncate(1, 0).ok());
    for (int32_t s : {0, 1}) {
      const std::vector<float> got = m.Last(p1, s);
      EXPECT_LE(MaxAbsDiff(got.data(), want.data() + (p1.size() - 1) * V, V), kTol)
          << "sequence " << s << ", " << be->name();
    }
  }
}

TEST_P(Qwen35Batch, TruncateOnlyToZeroOrTheLength) {
  Reference ref(GetParam());
  ASSERT_TRUE(ref.ok());
  const int64_t V = ref.vocab();
  const auto& be = Backends().front();
  TestModel m(dir(), be->iface());
  ASSERT_TRUE(m.ok()) << m.open_error();
  m.Last(ref.Tokens(2), 0);
  Result r = m.Truncate(0, 10);
  EXPECT_EQ(r.code, OXI_FAILED_PRECONDITION);
  EXPECT_NE(r.message.find("cannot be rewound"), std::string::npos) << r.message;
  EXPECT_TRUE(m.Truncate(0, 64).ok());
  EXPECT_TRUE(m.Truncate(0, 100).ok());  // keeps all (fewer than asked)
  EXPECT_EQ(m.Truncate(0, -1).code, OXI_INVALID_ARGUMENT);
  EXPECT_EQ(m.Truncate(1, 0).code, OXI_INVALID_ARGUMENT);
  // Nothing was lost: the greedy continuation goes on as transformers'.
  const std::vector<int32_t> greedy = ref.Ints(Reference::P(2, "greedy"));
  const std::vector<float> glogits = ref.Floats(Reference::P(2, "greedy_logits"));
  const std::vector<float> got = m.Last(&greedy[0], 1, 0);
  EXPECT_LE(MaxAbsDiff(got.data(), glogits.data() + V, V), kTol);
}

// 420 positions: the KV caches grow past their first 256 rows in a prefill,
// across forwards and during decode; every position still matches.
TEST_P(Qwen35Batch, KvCachesGrow) {
  Reference ref(GetParam());
  ASSERT_TRUE(ref.ok());
  const int64_t V = ref.vocab();
  std::vector<int32_t> tokens;
  for (int k = 0; k < 3; ++k) {
    for (int32_t t : ref.Tokens(4)) tokens.push_back(t);
  }
  const int64_t n = tokens.size();
  const std::vector<float> p4 = ref.Logits(4);
  for (const auto& be : Backends()) {
    TestModel one(dir(), be->iface()), three(dir(), be->iface()), steps(dir(), be->iface());
    std::vector<Entry> e(1);
    e[0].tokens = tokens;
    e[0].logits = OXI_LOGITS_ALL;
    ASSERT_TRUE(one.Forward(&e).ok());
    const std::vector<float> all = e[0].out;
    EXPECT_LE(MaxAbsDiff(all.data(), p4.data(), 140 * V), kTol) << be->name();
    float d_three = 0.0f, d_steps = 0.0f;
    for (int k = 0; k < 3; ++k) {
      e[0].tokens.assign(tokens.begin() + 140 * k, tokens.begin() + 140 * (k + 1));
      ASSERT_TRUE(three.Forward(&e).ok());
      d_three = std::max(d_three, MaxAbsDiff(e[0].out.data(), all.data() + 140 * k * V, 140 * V));
    }
    steps.Last(tokens.data(), 250);
    for (int64_t t = 250; t < 270; ++t) {
      const std::vector<float> got = steps.Last(&tokens[t], 1);
      d_steps = std::max(d_steps, MaxAbsDiff(got.data(), all.data() + t * V, V));
    }
    EXPECT_LE(d_three, kTol) << be->name();
    EXPECT_LE(d_steps, kTol) << be->name();
    std::printf(
        "[ diff ] %-14s %lld positions: three forwards %.2e  decode across 256 %.2e  (%s)\n",
        GetParam(), static_cast<long long>(n), d_three, d_steps, be->name().c_str());
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Qwen35Batch, ::testing::ValuesIn(kFixtures));

}  // namespace
}  // namespace test
}  // namespace qwen35
}  // namespace oxinfer
