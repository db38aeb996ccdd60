// Speculative decoding through the engine on the real Qwen 3.5 plugin: the
// reply with --draft mtp (the checkpoint's MTP head drafting, every length
// from 1 to 8) is token for token the reply without, greedy and sampled, on
// several prompts; an oracle drafter that is right except at chosen
// positions drives every kind of round (all, some, none accepted) through
// the verification and the dropped tails; the flags' refusals.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "core/engine/engine.h"
#include "gtest/gtest.h"
#include "tests/support/oracle_drafter.h"
#include "tests/support/test_backends.h"

namespace oxinfer::engine {
namespace {

using oxinfer::testing::OracleDrafter;
using oxinfer::testing::Runfile;

std::string FolderOf(const std::string& path) { return path.substr(0, path.rfind('/')); }
std::string Fixture(const std::string& name) {
  return FolderOf(Runfile("tests/models/qwen35/testdata/" + name + "/config.json"));
}

const char* const kPrompts[] = {"Hello there, world", "a", "The quick brown fox jumps over",
                                "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20"};
constexpr int64_t kTokens = 40;

EngineOptions Options(const std::string& fixture, const std::string& draft = "",
                      int32_t draft_tokens = 6) {
  EngineOptions o;
  o.model_dir = Fixture(fixture);
  o.plugin_dirs = absl::StrCat(FolderOf(Runfile("plugins/models/qwen35/liboxinfer_qwen35.so")), ":",
                               FolderOf(Runfile("plugins/backends/cpu/liboxinfer_cpu_scalar.so")));
  o.device = "cpu";
  o.draft = draft;
  o.draft_tokens = draft_tokens;
  return o;
}

Reply Generate(Engine& engine, const std::string& prompt, float temperature = 0.0f,
               bool record = false) {
  SessionOptions so;
  so.sampling.temperature = temperature;
  so.sampling.seed = 7;
  auto session = engine.NewSession(so);
  EXPECT_TRUE(session.ok()) << session.status();
  if (!session.ok()) return Reply();
  auto p = (*session)->RawPrompt(prompt);
  EXPECT_TRUE(p.ok()) << p.status();
  if (!p.ok()) return Reply();
  GenerationOptions go;
  go.max_tokens = kTokens;
  go.record_drafts = record;
  auto r = (*session)->Generate(*p, go, nullptr);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *std::move(r) : Reply();
}

std::vector<std::vector<int32_t>> Plain(const std::string& fixture, float temperature) {
  auto engine = Engine::Open(Options(fixture));
  EXPECT_TRUE(engine.ok()) << engine.status();
  std::vector<std::vector<int32_t>> out;
  if (!engine.ok()) return out;
  for (const char* p : kPrompts) out.push_back(Generate(**engine, p, temperature).tokens);
  return out;
}

TEST(Qwen35Speculative, MtpDraftingChangesNoToken) {
  const std::vector<std::vector<int32_t>> plain = Plain("tiny_mtp", 0.0f);
  for (int32_t n : {1, 2, 6, 8}) {
    SCOPED_TRACE(absl::StrCat("--draft-tokens ", n));
    auto engine = Engine::Open(Options("tiny_mtp", "mtp", n));
    ASSERT_TRUE(engine.ok()) << engine.status();
    int64_t drafted = 0;
    for (size_t i = 0; i < std::size(kPrompts); ++i) {
      const Reply r = Generate(**engine, kPrompts[i], 0.0f, /*record=*/true);
      EXPECT_EQ(r.tokens, plain[i]) << "prompt " << i;
      EXPECT_GT(r.tokens.size(), 1u);
      drafted += r.stats.drafted_tokens;
      int64_t rounds_drafted = 0, rounds_accepted = 0;
      for (const DraftRound& round : r.draft_rounds) {
        EXPECT_LE(static_cast<int32_t>(round.drafts.size()), n);
        rounds_drafted += static_cast<int64_t>(round.drafts.size());
        rounds_accepted += round.accepted;
      }
      EXPECT_EQ(rounds_drafted, r.stats.drafted_tokens);
      EXPECT_EQ(rounds_accepted, r.stats.accepted_tokens);
    }
    EXPECT_GT(drafted, 0);
  }
}

// Exact-match verification samples each position with the session's own
// sampler, so a seeded sampled reply is the plain one too.
TEST(Qwen35Speculative, SampledRepliesAreThePlainOnes) {
  const std::vector<std::vector<int32_t>> plain = Plain("tiny_mtp", 0.8f);
  auto engine = Engine::Open(Options("tiny_mtp", "mtp", 4));
  ASSERT_TRUE(engine.ok()) << engine.status();
  for (size_t i = 0; i < std::size(kPrompts); ++i) {
    EXPECT_EQ(Generate(**engine, kPrompts[i], 0.8f).tokens, plain[i]) << "prompt " << i;
  }
}

TEST(Qwen35Speculative, EveryKindOfRoundKeepsThePlainTokens) {
  for (const char* fixture : {"tiny_mtp"}) {
    const std::vector<std::vector<int32_t>> plain = Plain(fixture, 0.0f);
    for (int wrong_every : {2, 3, 5, 1000}) {
      for (size_t i = 0; i < std::size(kPrompts); ++i) {
        SCOPED_TRACE(absl::StrCat(fixture, " wrong every ", wrong_every, ", prompt ", i));
        // The prompt's ids, then the plain reply: positions as held.
        auto probe = Engine::Open(Options(fixture));
        ASSERT_TRUE(probe.ok()) << probe.status();
        auto s = (*probe)->NewSession({});
        ASSERT_TRUE(s.ok());
        auto p = (*s)->RawPrompt(kPrompts[i]);
        ASSERT_TRUE(p.ok());
        std::vector<int32_t> sequence = p->tokens;
        sequence.insert(sequence.end(), plain[i].begin(), plain[i].end());
        s->reset();
        OracleDrafter oracle(sequence, wrong_every, (*probe)->model_info().vocab_size,
                             /*past_end=*/0);
        probe->reset();

        EngineOptions o = Options(fixture, "mtp", 5);
        o.drafter = &oracle;
        auto engine = Engine::Open(o);
        ASSERT_TRUE(engine.ok()) << engine.status();
        const Reply r = Generate(**engine, kPrompts[i], 0.0f, /*record=*/true);
        EXPECT_EQ(r.tokens, plain[i]);
        bool all = false, some = false, none = false;
        for (const DraftRound& round : r.draft_rounds) {
          const int32_t d = static_cast<int32_t>(round.drafts.size());
          all |= round.accepted == d;
          some |= round.accepted > 0 && round.accepted < d;
          none |= round.accepted == 0;
        }
        if (wrong_every == 3) {
          EXPECT_TRUE(some);
        } else if (wrong_every == 1000) {
          EXPECT_TRUE(all);
        } else if (wrong_every == 2) {
          EXPECT_TRUE(none || some);
        }
        EXPECT_GT(r.stats.accepted_tokens, 0);
      }
    }
  }
}

TEST(Qwen35Speculative, Refusals) {
  auto no_head = Engine::Open(Options("tiny_tied", "mtp"));
  ASSERT_FALSE(no_head.ok());
  EXPECT_NE(no_head.status().message().find("--draft mtp"), std::string::npos) << no_head.status();
  EXPECT_NE(no_head.status().message().find("mtp.layers.0."), std::string::npos)
      << no_head.status();
  auto unknown = Engine::Open(Options("tiny_mtp", "eagle"));
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("--draft eagle: unknown drafter"), std::string::npos)
      << unknown.status();
  // A separate drafter checkpoint (--draft DIR) is not Qwen 3.5's way.
  auto folder = Engine::Open(Options("tiny_mtp", Fixture("tiny_tied")));
  ASSERT_FALSE(folder.ok());
  EXPECT_NE(folder.status().message().find("qwen35 takes no separate drafter checkpoint"),
            std::string::npos)
      << folder.status();
  auto zero = Engine::Open(Options("tiny_mtp", "mtp", 0));
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.status().message().find("--draft-tokens 0"), std::string::npos) << zero.status();
}

}  // namespace
}  // namespace oxinfer::engine
