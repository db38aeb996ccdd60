// Embedding rows in place of token embeddings (soft tokens: image or audio
// features), against transformers' multimodal merge (make_embedding_fixtures.py:
// the per-layer inputs of those positions take pad_token_id's identity part),
// and against our own token input where the rows are the token embeddings.
#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/models/gemma4/gemma4_test_util.h"

namespace oxinfer {
namespace gemma4_test {
namespace {

constexpr int32_t kPad = 0;  // pad_token_id of every fixture

struct Fixture {
  const char* name;
  bool ple;  // per-layer embeddings
};
const Fixture kFixtures[] = {{"e2b_like", true}, {"keqv_sharded", true}, {"dense_31b_like", false}};
void PrintTo(const Fixture& f, std::ostream* os) { *os << f.name; }

// The reference prompt with another id at the soft positions: image_token_id
// is outside the tiny fixtures' vocabulary, and the model must ignore the id
// there (its per-layer inputs take pad's, not this one's).
std::vector<int32_t> TokensAtSoftPositions(const EmbeddingPrompt& e) {
  std::vector<int32_t> t = e.tokens;
  for (size_t i = 0; i < t.size(); ++i) {
    if (e.mask[i]) t[i] = 7;
  }
  return t;
}

oxi_batch_entry EmbeddingEntry(int32_t seq, const int32_t* tokens, const float* rows,
                               const uint8_t* mask, int64_t n, int32_t mode, float* out) {
  oxi_batch_entry e = TokenEntry(seq, tokens, n, mode, out);
  e.embeddings = rows;
  e.embedding_mask = mask;
  return e;
}

class Gemma4Embeddings : public ::testing::TestWithParam<Fixture> {};

TEST_P(Gemma4Embeddings, MatchesTransformersInputsEmbeds) {
  const std::string dir = FixtureDir(GetParam().name);
  const EmbeddingPrompt ref = LoadEmbeddingReference(dir);
  ASSERT_FALSE(ref.tokens.empty());
  const std::vector<int32_t> tokens = TokensAtSoftPositions(ref);
  const int64_t T = static_cast<int64_t>(tokens.size());
  for (const auto& be : Backends()) {
    SCOPED_TRACE("backend " + be->name());
    for (int32_t chunk : {0, 3}) {
      SCOPED_TRACE("prefill chunk " + std::to_string(chunk));
      OpenOptions o;
      o.prefill_chunk = chunk;
      Model m(dir, be->iface(), o);
      ASSERT_TRUE(m.ok());
      ASSERT_TRUE(m.info().capabilities & OXI_MODEL_EMBEDDING_INPUT);
      const int V = m.vocab(), H = m.info().hidden_size;
      ASSERT_EQ(static_cast<int64_t>(ref.embeddings.size()), T * H);
      std::vector<float> all(T * V);
      std::string error;
      ASSERT_EQ(m.Forward({EmbeddingEntry(0, tokens.data(), ref.embeddings.data(), ref.mask.data(),
                                          T, OXI_LOGITS_ALL, all.data())},
                          &error),
                OXI_OK)
          << error;
      EXPECT_LE(MaxAbsDiff(all.data(), ref.logits.data(), T * V), kTolerance) << "one prefill";

      // One position per forward; the soft ones without tokens.
      m.Free(0);
      std::vector<float> logits(V);
      for (int64_t t = 0; t < T; ++t) {
        const oxi_batch_entry e =
            ref.mask[t] ? EmbeddingEntry(0, nullptr, &ref.embeddings[t * H], nullptr, 1,
                                         OXI_LOGITS_LAST, logits.data())
                        : TokenEntry(0, &tokens[t], 1, OXI_LOGITS_LAST, logits.data());
        ASSERT_EQ(m.Forward({e}, &error), OXI_OK) << error;
        EXPECT_LE(MaxAbsDiff(logits.data(), &ref.logits[t * V], V), kTolerance) << "position " << t;
      }
    }
  }
}

// Rows that are the scaled token embeddings give the token input's logits:
// with a mask over some positions (holding pad, whose per-layer identity part
// the soft positions take), and with no tokens at all.
TEST_P(Gemma4Embeddings, TokenEmbeddingRowsEqualTokenInput) {
  const std::string dir = FixtureDir(GetParam().name);
  const std::vector<float> table =
      LoadCheckpointFloats(dir, "model.language_model.embed_tokens.weight");
  ASSERT_FALSE(table.empty());
  for (const auto& be : Backends()) {
    SCOPED_TRACE("backend " + be->name());
    OpenOptions o;
    o.max_sequences = 2;
    Model m(dir, be->iface(), o);
    ASSERT_TRUE(m.ok());
    const int V = m.vocab(), H = m.info().hidden_size;
    const std::vector<Prompt> prompts = LoadReference(dir, V);
    std::vector<int32_t> tokens = prompts[3].tokens;
    const int64_t T = static_cast<int64_t>(tokens.size());
    std::vector<uint8_t> mask(T, 0);
    for (int64_t t = 1; t < T; t += 2) {
      mask[t] = 1;
      tokens[t] = kPad;
    }
    auto rows_of = [&](const std::vector<int32_t>& ids) {
      std::vector<float> rows(ids.size() * H);
      const float scale = std::sqrt(static_cast<float>(H));
      for (size_t t = 0; t < ids.size(); ++t) {
        for (int c = 0; c < H; ++c) rows[t * H + c] = table[ids[t] * H + c] * scale;
      }
      return rows;
    };
    std::string error;
    {
      const std::vector<float> rows = rows_of(tokens);
      std::vector<float> soft(T * V);
      ASSERT_EQ(m.Forward({EmbeddingEntry(0, tokens.data(), rows.data(), mask.data(), T,
                                          OXI_LOGITS_ALL, soft.data())},
                          &error),
                OXI_OK)
          << error;
      const std::vector<float> hard = m.Feed(1, tokens, OXI_LOGITS_ALL);
      ASSERT_EQ(hard.size(), soft.size());
      EXPECT_LE(MaxAbsDiff(soft.data(), hard.data(), T * V), kSameTolerance) << "masked rows";
    }
    m.Free(0);
    m.Free(1);
    {
      // No tokens: the per-layer inputs take pad's identity part everywhere.
      const std::vector<int32_t> ids = GetParam().ple ? std::vector<int32_t>(T, kPad) : tokens;
      const std::vector<float> rows = rows_of(ids);
      std::vector<float> soft(T * V);
      ASSERT_EQ(m.Forward({EmbeddingEntry(0, nullptr, rows.data(), nullptr, T, OXI_LOGITS_ALL,
                                          soft.data())},
                          &error),
                OXI_OK)
          << error;
      const std::vector<float> hard = m.Feed(1, ids, OXI_LOGITS_ALL);
      ASSERT_EQ(hard.size(), soft.size());
      EXPECT_LE(MaxAbsDiff(soft.data(), hard.data(), T * V), kSameTolerance) << "rows only";
    }
  }
}

// An embedding entry and a token entry in one forward, each exact.
TEST_P(Gemma4Embeddings, BatchedWithTokenEntries) {
  const std::string dir = FixtureDir(GetParam().name);
  const EmbeddingPrompt ref = LoadEmbeddingReference(dir);
  const std::vector<int32_t> tokens = TokensAtSoftPositions(ref);
  const int64_t T = static_cast<int64_t>(tokens.size());
  for (const auto& be : Backends()) {
    SCOPED_TRACE("backend " + be->name());
    OpenOptions o;
    o.max_sequences = 2;
    Model m(dir, be->iface(), o);
    ASSERT_TRUE(m.ok());
    const int V = m.vocab();
    const std::vector<Prompt> prompts = LoadReference(dir, V);
    const Prompt& pr = prompts[3];
    std::vector<float> soft(T * V), hard(pr.tokens.size() * V);
    std::string error;
    ASSERT_EQ(m.Forward({TokenEntry(1, pr.tokens.data(), static_cast<int64_t>(pr.tokens.size()),
                                    OXI_LOGITS_ALL, hard.data()),
                         EmbeddingEntry(0, tokens.data(), ref.embeddings.data(), ref.mask.data(), T,
                                        OXI_LOGITS_ALL, soft.data())},
                        &error),
              OXI_OK)
        << error;
    EXPECT_LE(MaxAbsDiff(soft.data(), ref.logits.data(), T * V), kTolerance);
    EXPECT_LE(MaxAbsDiff(hard.data(), pr.logits.data(), static_cast<int64_t>(hard.size())),
              kTolerance);
  }
}

// Positions fed by rows are not in the token history: a truncate or a prefix
// copy that must recompute them is refused, and the sequence stays usable.
TEST_P(Gemma4Embeddings, NoRebuildOverEmbeddingRows) {
  const std::string dir = FixtureDir(GetParam().name);
  const EmbeddingPrompt ref = LoadEmbeddingReference(dir);
  const std::vector<int32_t> tokens = TokensAtSoftPositions(ref);
  const int64_t T = static_cast<int64_t>(tokens.size());
  int64_t first_soft = 0;
  while (!ref.mask[first_soft]) ++first_soft;
  const auto& backends = Backends();
  ASSERT_FALSE(backends.empty());
  OpenOptions o;
  o.prefill_chunk = 3;  // rings of window + 3: a deep truncate needs a rebuild
  o.max_sequences = 2;
  Model m(dir, backends[0]->iface(), o);
  ASSERT_TRUE(m.ok());
  const int V = m.vocab(), H = m.info().hidden_size;
  std::vector<float> all(T * V);
  std::string error;
  auto feed_from = [&](int32_t seq, int64_t t0) {
    return m.Forward({EmbeddingEntry(seq, tokens.data() + t0, ref.embeddings.data() + t0 * H,
                                     ref.mask.data() + t0, T - t0, OXI_LOGITS_ALL, all.data())},
                     &error);
  };
  ASSERT_EQ(feed_from(0, 0), OXI_OK) << error;
  EXPECT_EQ(m.Truncate(0, first_soft + 2, &error), OXI_FAILED_PRECONDITION);
  EXPECT_NE(error.find("embedding row"), std::string::npos) << error;
  EXPECT_EQ(m.Copy(0, 1, first_soft + 2, &error), OXI_FAILED_PRECONDITION);
  EXPECT_NE(error.find("embedding row"), std::string::npos) << error;
  // Unchanged: a shallow truncate keeps the caches, and the last position is exact again.
  ASSERT_EQ(m.Truncate(0, T - 1, &error), OXI_OK) << error;
  ASSERT_EQ(feed_from(0, T - 1), OXI_OK) << error;
  EXPECT_LE(MaxAbsDiff(all.data(), &ref.logits[(T - 1) * V], V), kTolerance);
  // Before the first soft position the history suffices.
  ASSERT_EQ(m.Truncate(0, first_soft, &error), OXI_OK) << error;
  ASSERT_EQ(feed_from(0, first_soft), OXI_OK) << error;
  EXPECT_LE(MaxAbsDiff(all.data(), &ref.logits[first_soft * V], (T - first_soft) * V), kTolerance);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Gemma4Embeddings, ::testing::ValuesIn(kFixtures),
                         [](const ::testing::TestParamInfo<Fixture>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace gemma4_test
}  // namespace oxinfer
