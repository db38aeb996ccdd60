// The Gemma 4 assistant drafter (open_params.draft_dir) against transformers'
// Gemma4AssistantForCausalLM (fixtures by make_assistant_fixture.py): at every
// position of the reference greedy paths, the drafts token for token and their
// projected hidden states and logits within 1e-4, whether the sequence got
// there one token at a time or through a verification forward (every
// position's logits) and a truncation, as speculative decoding feeds it.
// Every backend of the command line.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/models/gemma4/gemma4_test_util.h"

namespace oxinfer {
namespace gemma4_test {
namespace {

const char* const kMains[] = {"e2b_like", "keqv_sharded", "dense_31b_like"};

class Gemma4Assistant : public ::testing::TestWithParam<const char*> {};

TEST_P(Gemma4Assistant, DraftsMatchTransformers) {
  const std::string main = GetParam();
  const std::string assistant = FixtureDir(main + "_assistant");
  const std::vector<DraftPrompt> prompts = LoadDraftReference(assistant);
  ASSERT_EQ(prompts.size(), 4u);
  for (const auto& be : Backends()) {
    float worst_hidden = 0, worst_logits = 0;
    for (int32_t chunk : {0, 2}) {
      SCOPED_TRACE("backend " + be->name() + ", prefill chunk " + std::to_string(chunk));
      OpenOptions o;
      o.draft_dir = assistant;
      o.prefill_chunk = chunk;
      Model m(FixtureDir(main), be->iface(), o);
      ASSERT_TRUE(m.ok());
      ASSERT_NE(m.info().capabilities & OXI_MODEL_DRAFT, 0u);
      const int64_t V = m.vocab(), H = m.info().hidden_size;
      for (size_t i = 0; i < prompts.size(); ++i) {
        const DraftPrompt& pr = prompts[i];
        const int N = pr.n_draft;
        m.Free(0);
        m.Feed(0, pr.tokens);
        std::vector<int32_t> tokens;
        std::vector<float> logits, hidden;
        for (size_t g = 0; g < pr.greedy.size(); ++g) {
          SCOPED_TRACE("prompt " + std::to_string(i) + ", step " + std::to_string(g));
          ASSERT_EQ(m.Draft(0, pr.greedy[g], N, &tokens, &logits, &hidden), OXI_OK);
          const std::vector<int32_t> want(pr.drafts.begin() + g * N,
                                          pr.drafts.begin() + (g + 1) * N);
          EXPECT_EQ(tokens, want);
          const float dh = MaxAbsDiff(hidden.data(), pr.hidden.data() + g * N * H, N * H);
          const float dl = MaxAbsDiff(logits.data(), pr.logits.data() + g * N * V, N * V);
          EXPECT_LE(dh, kTolerance);
          EXPECT_LE(dl, kTolerance);
          worst_hidden = std::max(worst_hidden, dh);
          worst_logits = std::max(worst_logits, dl);
          if (g % 2 == 0) {
            m.Feed(0, {pr.greedy[g]});
            continue;
          }
          // As the scheduler verifies: the next token and the drafts in one
          // forward of every position's logits, then the rejected drafts dropped.
          const int64_t length = static_cast<int64_t>(pr.tokens.size() + g);
          std::vector<int32_t> round = {pr.greedy[g]};
          round.insert(round.end(), tokens.begin(), tokens.begin() + 3);
          m.Feed(0, round, OXI_LOGITS_ALL);
          m.Truncate(0, length + 1);
        }
      }
    }
    std::printf("%s on %s: worst hidden %.2g, logits %.2g\n", main.c_str(), be->name().c_str(),
                worst_hidden, worst_logits);
  }
}

// Drafting leaves the sequence as it was: the same drafts twice, and the
// main model's next logits unchanged.
TEST_P(Gemma4Assistant, DraftingChangesNothing) {
  const std::string main = GetParam();
  const std::vector<DraftPrompt> prompts = LoadDraftReference(FixtureDir(main + "_assistant"));
  ASSERT_FALSE(prompts.empty());
  const DraftPrompt& pr = prompts.back();
  for (const auto& be : Backends()) {
    SCOPED_TRACE("backend " + be->name());
    OpenOptions o;
    o.draft_dir = FixtureDir(main + "_assistant");
    Model m(FixtureDir(main), be->iface(), o);
    Model plain(FixtureDir(main), be->iface());
    ASSERT_TRUE(m.ok() && plain.ok());
    m.Feed(0, pr.tokens);
    plain.Feed(0, pr.tokens);
    std::vector<int32_t> a, b;
    ASSERT_EQ(m.Draft(0, pr.greedy[0], 6, &a), OXI_OK);
    ASSERT_EQ(m.Draft(0, pr.greedy[0], 6, &b), OXI_OK);
    EXPECT_EQ(a, b);
    const std::vector<float> x = m.Feed(0, {pr.greedy[0]});
    const std::vector<float> y = plain.Feed(0, {pr.greedy[0]});
    EXPECT_LE(MaxAbsDiff(x.data(), y.data(), m.vocab()), kSameTolerance);
  }
}

// Without a forward that computed the last position's hidden state (here:
// no logits asked), drafting is refused with the reason; so is drafting on a
// model opened without an assistant.
TEST_P(Gemma4Assistant, RefusesWithoutHiddenState) {
  const std::string main = GetParam();
  for (const auto& be : Backends()) {
    SCOPED_TRACE("backend " + be->name());
    OpenOptions o;
    o.draft_dir = FixtureDir(main + "_assistant");
    Model m(FixtureDir(main), be->iface(), o);
    ASSERT_TRUE(m.ok());
    m.Feed(0, {2, 5, 7}, OXI_LOGITS_NONE);
    std::vector<int32_t> t;
    std::string error;
    EXPECT_EQ(m.Draft(0, 9, 2, &t, nullptr, nullptr, &error), OXI_FAILED_PRECONDITION);
    EXPECT_NE(error.find("no hidden state"), std::string::npos) << error;
    Model plain(FixtureDir(main), be->iface());
    ASSERT_TRUE(plain.ok());
    EXPECT_EQ(plain.info().capabilities & OXI_MODEL_DRAFT, 0u);
    plain.Feed(0, {2, 5, 7});
    EXPECT_EQ(plain.Draft(0, 9, 2, &t, nullptr, nullptr, &error), OXI_FAILED_PRECONDITION);
    EXPECT_NE(error.find("draft_dir"), std::string::npos) << error;
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Gemma4Assistant, ::testing::ValuesIn(kMains),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace gemma4_test
}  // namespace oxinfer
