// Several sequences through the model ABI: batches equal to each sequence
// alone (within 1e-5, same greedy tokens), mixed prefill and decode, steps
// smaller than the prompts, truncation with ring rebuilds, prefix copies that
// then diverge, free and reuse. Every backend of the command line.
#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/models/gemma4/gemma4_test_util.h"

namespace oxinfer {
namespace gemma4_test {
namespace {

const char* const kFixtures[] = {"e2b_like", "keqv_sharded", "dense_31b_like", "text_only_saved"};

// Greedy decoding of `steps` tokens after `prompt` on sequence seq: the logits
// that chose each token.
std::vector<std::vector<float>> GreedyAlone(Model& m, int32_t seq,
                                            const std::vector<int32_t>& prompt, int steps) {
  std::vector<std::vector<float>> out;
  std::vector<float> logits = m.Feed(seq, prompt);
  for (int g = 0; g < steps && !logits.empty(); ++g) {
    out.push_back(logits);
    logits = m.Feed(seq, {ArgMax(logits.data(), m.vocab())});
  }
  return out;
}

class Gemma4Sequences : public ::testing::TestWithParam<const char*> {};

// All reference prompts (lengths 1, 5, window + 3, 4 windows + 5) prefilled in
// one forward, then decoded greedily together: each equals its run alone.
TEST_P(Gemma4Sequences, BatchEqualsEachAlone) {
  const std::string dir = FixtureDir(GetParam());
  for (const auto& be : Backends()) {
    SCOPED_TRACE("backend " + be->name());
    for (int32_t chunk : {0, 4}) {
      SCOPED_TRACE("prefill chunk " + std::to_string(chunk));
      OpenOptions o;
      o.max_sequences = 4;
      o.prefill_chunk = chunk;
      Model m(dir, be->iface(), o);
      ASSERT_TRUE(m.ok());
      const int V = m.vocab();
      const std::vector<Prompt> prompts = LoadReference(dir, V);
      ASSERT_EQ(prompts.size(), 4u);
      const int G = 8;
      std::vector<std::vector<std::vector<float>>> alone;
      for (int i = 0; i < 4; ++i) {
        alone.push_back(GreedyAlone(m, i, prompts[i].tokens, G));
        m.Free(i);
      }
      // Prefill together (logits of every position), then decode together.
      std::vector<std::vector<float>> all(4);
      std::vector<oxi_batch_entry> batch;
      for (int i = 0; i < 4; ++i) {
        all[i].resize(prompts[i].tokens.size() * V);
        batch.push_back(TokenEntry(i, prompts[i].tokens.data(),
                                   static_cast<int64_t>(prompts[i].tokens.size()), OXI_LOGITS_ALL,
                                   all[i].data()));
      }
      std::string error;
      ASSERT_EQ(m.Forward(batch, &error), OXI_OK) << error;
      std::vector<int32_t> next(4);
      for (int i = 0; i < 4; ++i) {
        const Prompt& pr = prompts[i];
        const int T = static_cast<int>(pr.tokens.size());
        EXPECT_LE(MaxAbsDiff(all[i].data(), pr.logits.data(), T * V), kTolerance) << "prompt " << i;
        EXPECT_LE(MaxAbsDiff(&all[i][(T - 1) * V], alone[i][0].data(), V), kSameTolerance)
            << "prompt " << i;
        next[i] = ArgMax(&all[i][(T - 1) * V], V);
      }
      std::vector<std::vector<float>> step(4, std::vector<float>(V));
      for (int g = 1; g < G; ++g) {
        batch.clear();
        for (int i = 0; i < 4; ++i) {
          batch.push_back(TokenEntry(i, &next[i], 1, OXI_LOGITS_LAST, step[i].data()));
        }
        ASSERT_EQ(m.Forward(batch, &error), OXI_OK) << error;
        for (int i = 0; i < 4; ++i) {
          EXPECT_LE(MaxAbsDiff(step[i].data(), alone[i][g].data(), V), kSameTolerance)
              << "prompt " << i << ", step " << g;
          EXPECT_LE(MaxAbsDiff(step[i].data(), &prompts[i].greedy_logits[g * V], V), kTolerance)
              << "prompt " << i << ", step " << g;
          EXPECT_EQ(next[i], prompts[i].greedy[g - 1]) << "prompt " << i << ", step " << g;
          next[i] = ArgMax(step[i].data(), V);
        }
      }
    }
  }
}

// One sequence decodes while another prefills, in steps smaller than the
// prefill (so the decode entry shares a step with a piece of the prefill).
TEST_P(Gemma4Sequences, MixedPrefillAndDecode) {
  const std::string dir = FixtureDir(GetParam());
  for (const auto& be : Backends()) {
    SCOPED_TRACE("backend " + be->name());
    for (int32_t chunk : {0, 3}) {
      OpenOptions o;
      o.max_sequences = 2;
      o.prefill_chunk = chunk;
      Model m(dir, be->iface(), o);
      ASSERT_TRUE(m.ok());
      const int V = m.vocab();
      const std::vector<Prompt> prompts = LoadReference(dir, V);
      const Prompt& a = prompts[2];
      const Prompt& b = prompts[3];
      ASSERT_FALSE(m.Feed(0, a.tokens).empty());
      std::vector<float> decode(V), prefill(b.tokens.size() * V);
      const int32_t tok = a.greedy[0];
      std::string error;
      ASSERT_EQ(m.Forward({TokenEntry(1, b.tokens.data(), static_cast<int64_t>(b.tokens.size()),
                                      OXI_LOGITS_ALL, prefill.data()),
                           TokenEntry(0, &tok, 1, OXI_LOGITS_LAST, decode.data())},
                          &error),
                OXI_OK)
          << error;
      EXPECT_LE(MaxAbsDiff(decode.data(), &a.greedy_logits[1 * V], V), kTolerance);
      EXPECT_LE(MaxAbsDiff(prefill.data(), b.logits.data(), static_cast<int64_t>(prefill.size())),
                kTolerance);
      // And the NONE mode: positions appended, no logits written.
      const int32_t tok2 = a.greedy[1];
      ASSERT_EQ(m.Forward({TokenEntry(0, &tok2, 1, OXI_LOGITS_NONE, nullptr)}, &error), OXI_OK)
          << error;
      std::vector<float> after = m.Feed(0, {a.greedy[2]});
      ASSERT_EQ(static_cast<int>(after.size()), V);
      EXPECT_LE(MaxAbsDiff(after.data(), &a.greedy_logits[3 * V], V), kTolerance);
    }
  }
}

// Rings in steps of 3 wrap around many times; truncating one sequence of a
// batch by a little keeps its caches, by a lot recomputes it; either way both
// sequences continue exactly.
TEST_P(Gemma4Sequences, RingWrapTruncateAndRebuild) {
  const std::string dir = FixtureDir(GetParam());
  for (const auto& be : Backends()) {
    SCOPED_TRACE("backend " + be->name());
    OpenOptions o;
    o.max_sequences = 2;
    o.prefill_chunk = 3;
    Model m(dir, be->iface(), o);
    ASSERT_TRUE(m.ok());
    const int V = m.vocab();
    const std::vector<Prompt> prompts = LoadReference(dir, V);
    const Prompt& pr = prompts[3];  // 4 windows + 5
    const int T = static_cast<int>(pr.tokens.size());
    ASSERT_FALSE(m.Feed(0, pr.tokens).empty());
    ASSERT_FALSE(m.Feed(1, pr.tokens).empty());
    for (int keep : {T - 1, T - 3, T / 2, 2, 1}) {
      SCOPED_TRACE("keep " + std::to_string(keep));
      m.Truncate(0, keep);
      std::vector<float> all = m.Feed(0, pr.tokens.data() + keep, T - keep, OXI_LOGITS_ALL);
      ASSERT_EQ(static_cast<int>(all.size()), (T - keep) * V);
      EXPECT_LE(MaxAbsDiff(all.data(), &pr.logits[keep * V], (T - keep) * V), kTolerance);
    }
    // Sequence 1 was never touched: its continuation is still exact.
    std::vector<float> logits = m.Feed(1, {pr.greedy[0]});
    ASSERT_EQ(static_cast<int>(logits.size()), V);
    EXPECT_LE(MaxAbsDiff(logits.data(), &pr.greedy_logits[1 * V], V), kTolerance);
  }
}

// seq_copy of a prefix, then the copy diverges: it equals a fresh sequence fed
// the same tokens, and the source continues undisturbed.
TEST_P(Gemma4Sequences, CopyPrefixThenDiverge) {
  const std::string dir = FixtureDir(GetParam());
  for (const auto& be : Backends()) {
    SCOPED_TRACE("backend " + be->name());
    for (int32_t chunk : {0, 3}) {  // 3: copying a deep prefix needs a rebuild
      SCOPED_TRACE("prefill chunk " + std::to_string(chunk));
      OpenOptions o;
      o.max_sequences = 3;
      o.prefill_chunk = chunk;
      Model m(dir, be->iface(), o);
      ASSERT_TRUE(m.ok());
      const int V = m.vocab();
      const std::vector<Prompt> prompts = LoadReference(dir, V);
      const Prompt& pr = prompts[3];
      const int T = static_cast<int>(pr.tokens.size());
      const std::vector<int32_t>& other = prompts[2].tokens;
      ASSERT_FALSE(m.Feed(0, pr.tokens).empty());
      for (int n : {T, T - 2, T / 2, 1, 0}) {
        SCOPED_TRACE("prefix " + std::to_string(n));
        m.Copy(0, 1, n);
        std::vector<float> diverged = m.Feed(1, other, OXI_LOGITS_ALL);
        std::vector<int32_t> fresh(pr.tokens.begin(), pr.tokens.begin() + n);
        fresh.insert(fresh.end(), other.begin(), other.end());
        m.Free(2);
        std::vector<float> expect = m.Feed(2, fresh, OXI_LOGITS_ALL);
        ASSERT_EQ(diverged.size(), other.size() * V);
        ASSERT_EQ(expect.size(), fresh.size() * V);
        EXPECT_LE(
            MaxAbsDiff(diverged.data(), &expect[n * V], static_cast<int64_t>(diverged.size())),
            kSameTolerance);
      }
      std::vector<float> logits = m.Feed(0, {pr.greedy[0]});
      ASSERT_EQ(static_cast<int>(logits.size()), V);
      EXPECT_LE(MaxAbsDiff(logits.data(), &pr.greedy_logits[1 * V], V), kTolerance)
          << "the source after the copies";
    }
  }
}

// A freed sequence starts empty and can grow beyond what it held before.
TEST_P(Gemma4Sequences, FreeAndReuse) {
  const std::string dir = FixtureDir(GetParam());
  for (const auto& be : Backends()) {
    SCOPED_TRACE("backend " + be->name());
    Model m(dir, be->iface());
    ASSERT_TRUE(m.ok());
    const int V = m.vocab();
    const std::vector<Prompt> prompts = LoadReference(dir, V);
    for (int i : {1, 3, 0, 2}) {
      const Prompt& pr = prompts[i];
      const int T = static_cast<int>(pr.tokens.size());
      m.Free(0);
      std::vector<float> logits = m.Feed(0, pr.tokens);
      ASSERT_EQ(static_cast<int>(logits.size()), V);
      EXPECT_LE(MaxAbsDiff(logits.data(), &pr.logits[(T - 1) * V], V), kTolerance) << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Gemma4Sequences, ::testing::ValuesIn(kFixtures),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param);
                         });

}  // namespace
}  // namespace gemma4_test
}  // namespace oxinfer
