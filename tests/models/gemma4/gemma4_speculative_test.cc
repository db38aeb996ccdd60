// Speculative decoding through the engine with Gemma 4's assistant drafter
// (--draft DIR, the assistant fixtures of make_assistant_fixture.py): the
// reply with drafting (1, 2 and 6 drafts per round) is token for token the
// reply without, greedy and sampled; an oracle drafter on a model opened for
// drafting drives rounds where all, some or none of the drafts are taken
// through the verification and the truncations; the refusals.
#include <unistd.h>

#include <cstdlib>
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

const std::string kData = "tests/models/gemma4/testdata/";
const char* const kMains[] = {"e2b_like", "keqv_sharded"};
const char* const kPrompts[] = {"a b c", "hello world", "the quick brown fox jumps over it"};
constexpr int64_t kTokens = 24;

std::string FolderOf(const std::string& path) { return path.substr(0, path.rfind('/')); }

// The main fixture with a tokenizer (the one its GGUF conversion carries):
// a folder of links under the test's temporary directory.
std::string MainWithTokenizer(const std::string& name) {
  const std::string src = FolderOf(Runfile(kData + name + "/config.json"));
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = std::string(tmp != nullptr ? tmp : "/tmp") + "/" + name;
  if (::access((dir + "/tokenizer.json").c_str(), F_OK) == 0) return dir;
  EXPECT_EQ(
      std::system(absl::StrCat("mkdir -p ", dir, " && ln -sf ", src, "/* ", dir, " && ln -sf ",
                               Runfile(kData + "gguf/" + name + ".tokenizer.json"), " ", dir,
                               "/tokenizer.json")
                      .c_str()),
      0);
  return dir;
}

std::string Assistant(const std::string& main) {
  return FolderOf(Runfile(kData + main + "_assistant/config.json"));
}

EngineOptions Options(const std::string& main, const std::string& draft = "",
                      int32_t draft_tokens = 6, oxi_dtype weights = OXI_DTYPE_INVALID) {
  EngineOptions o;
  o.weight_dtype = weights;
  o.model_dir = MainWithTokenizer(main);
  o.plugin_dirs = absl::StrCat(FolderOf(Runfile("plugins/models/gemma4/liboxinfer_gemma4.so")), ":",
                               FolderOf(Runfile("plugins/backends/cpu/liboxinfer_cpu_scalar.so")));
  o.device = "cpu";
  o.draft = draft;
  o.draft_tokens = draft_tokens;
  return o;
}

Reply Generate(Engine& engine, const std::string& prompt, float temperature = 0.0f) {
  SessionOptions so;
  so.sampling.temperature = temperature;
  so.sampling.seed = 11;
  auto session = engine.NewSession(so);
  EXPECT_TRUE(session.ok()) << session.status();
  if (!session.ok()) return Reply();
  auto p = (*session)->RawPrompt(prompt);
  EXPECT_TRUE(p.ok()) << p.status();
  if (!p.ok()) return Reply();
  GenerationOptions go;
  go.max_tokens = kTokens;
  go.record_drafts = true;
  auto r = (*session)->Generate(*p, go, nullptr);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *std::move(r) : Reply();
}

std::vector<Reply> Plain(const std::string& main, float temperature,
                         oxi_dtype weights = OXI_DTYPE_INVALID) {
  auto engine = Engine::Open(Options(main, "", 6, weights));
  EXPECT_TRUE(engine.ok()) << engine.status();
  std::vector<Reply> out;
  if (!engine.ok()) return out;
  for (const char* p : kPrompts) out.push_back(Generate(**engine, p, temperature));
  return out;
}

// Greedy replies while the assistant drafts up to n tokens are `plain`'s, and
// drafts were made.
void ExpectPlainTokensWhileDrafting(const char* main, int32_t n, oxi_dtype weights,
                                    const std::vector<Reply>& plain) {
  auto engine = Engine::Open(Options(main, Assistant(main), n, weights));
  ASSERT_TRUE(engine.ok()) << engine.status();
  int64_t drafted = 0;
  for (size_t i = 0; i < std::size(kPrompts); ++i) {
    const Reply r = Generate(**engine, kPrompts[i]);
    EXPECT_EQ(r.tokens, plain[i].tokens) << "prompt " << i;
    drafted += r.stats.drafted_tokens;
    for (const DraftRound& round : r.draft_rounds) {
      EXPECT_LE(static_cast<int32_t>(round.drafts.size()), n);
    }
  }
  EXPECT_GT(drafted, 0);
}

TEST(Gemma4Speculative, AssistantDraftingChangesNoToken) {
  for (const char* main : kMains) {
    const std::vector<Reply> plain = Plain(main, 0.0f);
    for (int32_t n : {1, 2, 6}) {
      SCOPED_TRACE(absl::StrCat(main, ", --draft-tokens ", n));
      ExpectPlainTokensWhileDrafting(main, n, OXI_DTYPE_INVALID, plain);
    }
  }
}

// Quantised at load, main model and assistant alike: e2b_like's assistant
// has the ordered (centroid) head, whose table is read by rows only, so its
// Q8_0 copy is dropped; keqv_sharded's has the plain tied head.
TEST(Gemma4Speculative, QuantisedDraftingChangesNoToken) {
  for (const oxi_dtype weights : {OXI_DTYPE_Q8_0, OXI_DTYPE_Q4_0}) {
    for (const char* main : kMains) {
      SCOPED_TRACE(absl::StrCat(main, " at ", oxi_dtype_name(weights)));
      ExpectPlainTokensWhileDrafting(main, 4, weights, Plain(main, 0.0f, weights));
    }
  }
}

TEST(Gemma4Speculative, SampledRepliesAreThePlainOnes) {
  for (const char* main : kMains) {
    SCOPED_TRACE(main);
    const std::vector<Reply> plain = Plain(main, 0.9f);
    auto engine = Engine::Open(Options(main, Assistant(main), 4));
    ASSERT_TRUE(engine.ok()) << engine.status();
    for (size_t i = 0; i < std::size(kPrompts); ++i) {
      EXPECT_EQ(Generate(**engine, kPrompts[i], 0.9f).tokens, plain[i].tokens) << "prompt " << i;
    }
  }
}

TEST(Gemma4Speculative, EveryKindOfRoundKeepsThePlainTokens) {
  for (const char* main : kMains) {
    const std::vector<Reply> plain = Plain(main, 0.0f);
    for (int wrong_every : {2, 3, 1000}) {
      for (size_t i = 0; i < std::size(kPrompts); ++i) {
        SCOPED_TRACE(absl::StrCat(main, " wrong every ", wrong_every, ", prompt ", i));
        auto probe = Engine::Open(Options(main));
        ASSERT_TRUE(probe.ok()) << probe.status();
        auto s = (*probe)->NewSession({});
        ASSERT_TRUE(s.ok());
        auto p = (*s)->RawPrompt(kPrompts[i]);
        ASSERT_TRUE(p.ok());
        std::vector<int32_t> sequence = p->tokens;
        sequence.insert(sequence.end(), plain[i].tokens.begin(), plain[i].tokens.end());
        OracleDrafter oracle(sequence, wrong_every, (*probe)->model_info().vocab_size,
                             /*past_end=*/3);
        s->reset();
        probe->reset();
        EngineOptions o = Options(main, Assistant(main), 5);
        o.drafter = &oracle;
        auto engine = Engine::Open(o);
        ASSERT_TRUE(engine.ok()) << engine.status();
        const Reply r = Generate(**engine, kPrompts[i]);
        EXPECT_EQ(r.tokens, plain[i].tokens);
        bool all = false, some = false;
        for (const DraftRound& round : r.draft_rounds) {
          const int32_t d = static_cast<int32_t>(round.drafts.size());
          all |= round.accepted == d;
          some |= round.accepted > 0 && round.accepted < d;
        }
        if (wrong_every == 3 && r.tokens.size() > 8) EXPECT_TRUE(some);
        if (wrong_every == 1000 && r.tokens.size() > 8) EXPECT_TRUE(all);
      }
    }
  }
}

TEST(Gemma4Speculative, Refusals) {
  auto missing = Engine::Open(Options("e2b_like", "/nonexistent/assistant"));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("no such folder"), std::string::npos)
      << missing.status();
  // The main model's own folder is no assistant.
  auto wrong = Engine::Open(Options("e2b_like", FolderOf(Runfile(kData + "e2b_like/config.json"))));
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("gemma4_assistant"), std::string::npos) << wrong.status();
  // An assistant trained for another main model.
  auto other = Engine::Open(Options("e2b_like", Assistant("keqv_sharded")));
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("backbone_hidden_size 48"), std::string::npos)
      << other.status();
  auto mtp = Engine::Open(Options("e2b_like", "mtp"));
  ASSERT_FALSE(mtp.ok());
  EXPECT_NE(mtp.status().message().find("--draft mtp"), std::string::npos) << mtp.status();
}

}  // namespace
}  // namespace oxinfer::engine
