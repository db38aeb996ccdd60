// Qwen 3.5's MTP head through the plugin's ABI (2.2 draft): its drafts, hidden
// states and logits against the PyTorch reference of vLLM's computation
// (tools/reference/qwen35/make_mtp_fixture.py), and what speculative decoding
// needs of the sequences: a verification's tail dropped (DeltaNet states
// restored), the head's own cache following, drafting without side effects,
// and the refusals.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/models/qwen35/qwen35_test_support.h"

namespace oxinfer {
namespace qwen35 {
namespace test {
namespace {

constexpr char kMtpFixture[] = "tiny_mtp";
constexpr int kMtpPrompts = 4;  // p0..p3 in mtp_reference.safetensors

OpenOptions Drafting(int32_t sequences = 1) {
  OpenOptions o;
  o.draft = 1;
  o.max_sequences = sequences;
  return o;
}

// Runs `body` once per backend of the command line.
template <typename F>
void OnEveryBackend(F body) {
  for (const auto& be : Backends()) {
    SCOPED_TRACE(be->name());
    body(be->iface());
  }
}

TEST(Qwen35Mtp, DraftsMatchTheReference) {
  OnEveryBackend([](const oxi_backend_iface* backend) {
    TestModel m(FixtureDir(kMtpFixture), backend, Drafting());
    ASSERT_TRUE(m.ok()) << m.open_error();
    EXPECT_NE(m.info().capabilities & OXI_MODEL_DRAFT, 0u);
    const Reference ref(kMtpFixture, "mtp_reference");
    ASSERT_TRUE(ref.ok());
    const int64_t V = m.vocab(), H = m.info().hidden_size;
    for (int i = 0; i < kMtpPrompts; ++i) {
      SCOPED_TRACE("prompt " + std::to_string(i));
      const std::vector<int32_t> tokens = ref.Tokens(i);
      const std::vector<int32_t> want = ref.Ints(Reference::P(i, "drafts"));
      const std::vector<float> want_logits = ref.Floats(Reference::P(i, "draft_logits"));
      const std::vector<float> want_hidden = ref.Floats(Reference::P(i, "draft_hidden"));
      const int32_t next = ref.Ints(Reference::P(i, "next"))[0];
      const std::vector<float> logits = m.Last(tokens);
      ASSERT_EQ(Argmax(logits.data(), V), next);
      const int32_t n = static_cast<int32_t>(want.size());
      const Drafts d = m.Draft(0, next, n);
      ASSERT_TRUE(d.result.ok()) << d.result.message;
      EXPECT_EQ(d.tokens, want);
      for (int32_t s = 0; s < n; ++s) {
        EXPECT_LT(MaxAbsDiff(d.hidden.data() + s * H, want_hidden.data() + s * H, H), kTol)
            << "step " << s;
        EXPECT_LT(MaxAbsDiff(d.logits.data() + s * V, want_logits.data() + s * V, V), kTol)
            << "step " << s;
      }
      // Drafting leaves the sequence as it was: again, the same.
      const Drafts again = m.Draft(0, next, n);
      ASSERT_TRUE(again.result.ok()) << again.result.message;
      EXPECT_EQ(again.tokens, want);
      m.Free(0);
    }
  });
}

// A verification forward of 6 tokens cut back to 3 (the DeltaNet states of
// its third position restored) leaves the sequence, and the MTP head, as a
// sequence that was only ever fed those tokens.
TEST(Qwen35Mtp, DroppedVerificationTailLeavesThePlainSequence) {
  OnEveryBackend([](const oxi_backend_iface* backend) {
    TestModel m(FixtureDir(kMtpFixture), backend, Drafting(2));
    ASSERT_TRUE(m.ok()) << m.open_error();
    const Reference ref(kMtpFixture, "mtp_reference");
    const int64_t V = m.vocab(), H = m.info().hidden_size;
    const std::vector<int32_t> prompt = ref.Tokens(0);  // 9 tokens
    const std::vector<int32_t> verify = {5, 17, 29, 41, 53, 65};
    const int32_t next = 77;

    // Sequence 0: prompt, a draft, the verification, cut to its first 3.
    m.Last(prompt, 0);
    ASSERT_TRUE(m.Draft(0, verify[0], 4).result.ok());
    std::vector<Entry> e(1);
    e[0].seq = 0;
    e[0].tokens = verify;
    e[0].logits = OXI_LOGITS_ALL;
    ASSERT_TRUE(m.Forward(&e).ok());
    const std::vector<float> all = e[0].out;
    const int64_t cut = static_cast<int64_t>(prompt.size()) + 3;
    const Result r = m.Truncate(0, cut);
    ASSERT_TRUE(r.ok()) << r.message;
    // Only within that forward: not into the prompt.
    EXPECT_EQ(m.Truncate(0, static_cast<int64_t>(prompt.size()) - 1).code, OXI_FAILED_PRECONDITION);
    const std::vector<float> after_cut = m.Last(std::vector<int32_t>{next}, 0);
    const Drafts cut_drafts = m.Draft(0, 88, 3);
    ASSERT_TRUE(cut_drafts.result.ok()) << cut_drafts.result.message;

    // Sequence 1: the same tokens, plainly.
    m.Last(prompt, 1);
    const std::vector<float> plain3 =
        m.Last(std::vector<int32_t>(verify.begin(), verify.begin() + 3), 1);
    const std::vector<float> plain = m.Last(std::vector<int32_t>{next}, 1);
    const Drafts plain_drafts = m.Draft(1, 88, 3);
    ASSERT_TRUE(plain_drafts.result.ok()) << plain_drafts.result.message;

    EXPECT_LT(MaxAbsDiff(all.data() + 2 * V, plain3.data(), V), kTol);
    EXPECT_LT(MaxAbsDiff(after_cut.data(), plain.data(), V), kTol);
    EXPECT_EQ(cut_drafts.tokens, plain_drafts.tokens);
    EXPECT_LT(MaxAbsDiff(cut_drafts.hidden.data(), plain_drafts.hidden.data(), 3 * H), kTol);
  });
}

// A verification's tail can be cut to its first position (nothing drafted
// accepted) and to nothing of it at all.
TEST(Qwen35Mtp, CutsToTheVerificationsStart) {
  OnEveryBackend([](const oxi_backend_iface* backend) {
    TestModel m(FixtureDir(kMtpFixture), backend, Drafting(2));
    ASSERT_TRUE(m.ok()) << m.open_error();
    const int64_t V = m.vocab();
    const std::vector<int32_t> prompt = {3, 1, 4, 1, 5, 9, 2, 6};
    for (int64_t keep : {int64_t{0}, int64_t{1}}) {
      SCOPED_TRACE("keep " + std::to_string(keep));
      m.Last(prompt, 0);
      std::vector<Entry> e(1);
      e[0].tokens = {10, 20, 30};
      e[0].logits = OXI_LOGITS_ALL;
      ASSERT_TRUE(m.Forward(&e).ok());
      const Result r = m.Truncate(0, static_cast<int64_t>(prompt.size()) + keep);
      ASSERT_TRUE(r.ok()) << r.message;
      const std::vector<float> got = m.Last(std::vector<int32_t>{40}, 0);
      std::vector<int32_t> plain = prompt;
      if (keep == 1) plain.push_back(10);
      plain.push_back(40);
      const std::vector<float> want = m.Last(plain, 1);
      EXPECT_LT(MaxAbsDiff(got.data(), want.data(), V), kTol);
      m.Free(0);
      m.Free(1);
    }
  });
}

TEST(Qwen35MtpRefusals, CheckpointWithoutTheHead) {
  // tiny_tied carries mtp.fc and the norms but no mtp.layers.0.
  OpenOptions o;
  o.draft = 1;
  TestModel m(FixtureDir("tiny_tied"), Backends().front()->iface(), o);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.open_error().find("no complete multi-token-prediction head"), std::string::npos)
      << m.open_error();
  EXPECT_NE(m.open_error().find("mtp.layers.0."), std::string::npos) << m.open_error();
}

TEST(Qwen35MtpRefusals, NotOpenedForDrafting) {
  TestModel m(FixtureDir(kMtpFixture), Backends().front()->iface());
  ASSERT_TRUE(m.ok()) << m.open_error();
  EXPECT_EQ(m.info().capabilities & OXI_MODEL_DRAFT, 0u);
  m.Last(std::vector<int32_t>{1, 2, 3});
  const Drafts d = m.Draft(0, 4, 2);
  EXPECT_EQ(d.result.code, OXI_FAILED_PRECONDITION);
  EXPECT_NE(d.result.message.find("not opened for drafting"), std::string::npos)
      << d.result.message;
  // Without drafting, a sequence still cannot be cut back.
  EXPECT_EQ(m.Truncate(0, 2).code, OXI_FAILED_PRECONDITION);
}

TEST(Qwen35MtpRefusals, DraftBeforeAnyForwardAndBadArguments) {
  OpenOptions o;
  o.draft = 1;
  TestModel m(FixtureDir(kMtpFixture), Backends().front()->iface(), o);
  ASSERT_TRUE(m.ok()) << m.open_error();
  Drafts d = m.Draft(0, 4, 2);
  EXPECT_EQ(d.result.code, OXI_FAILED_PRECONDITION) << d.result.message;
  m.Last(std::vector<int32_t>{1, 2, 3});
  d = m.Draft(0, static_cast<int32_t>(m.vocab()), 2);
  EXPECT_EQ(d.result.code, OXI_INVALID_ARGUMENT) << d.result.message;
  d = m.Draft(0, 4, 0);
  EXPECT_EQ(d.result.code, OXI_INVALID_ARGUMENT) << d.result.message;
  d = m.Draft(5, 4, 2);
  EXPECT_EQ(d.result.code, OXI_INVALID_ARGUMENT) << d.result.message;
}

}  // namespace
}  // namespace test
}  // namespace qwen35
}  // namespace oxinfer
