// Exactness of the Qwen 3.5 plugin against transformers float32 (fixtures made
// by tools/reference/qwen35/make_fixtures.py), on every backend spec of the
// command line: logits within 1e-4 max abs at every checked position,
// identical 32-token greedy continuations, the chunked (prefill) and
// recurrent (decode) forms of the gated delta rule agreeing, logits of every
// position (OXI_LOGITS_ALL) equal to transformers' per position.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "gtest/gtest.h"
#include "tests/models/qwen35/qwen35_test_support.h"

namespace oxinfer {
namespace qwen35 {
namespace test {
namespace {

class Qwen35Exactness : public ::testing::TestWithParam<const char*> {
 protected:
  std::string dir() const { return FixtureDir(GetParam()); }
};

// One forward of the whole prompt (chunked gated delta rule) then cached greedy
// decode (recurrent form), against transformers.
TEST_P(Qwen35Exactness, PrefillAndGreedyMatchTransformers) {
  Reference ref(GetParam());
  ASSERT_TRUE(ref.ok());
  for (const auto& be : Backends()) {
    for (int i = 0; i < kPrompts; ++i) {
      TestModel m(dir(), be->iface());
      ASSERT_TRUE(m.ok()) << m.open_error();
      ASSERT_EQ(m.vocab(), ref.vocab());
      const std::vector<int32_t> tokens = ref.Tokens(i);
      const std::vector<float> logits = ref.Logits(i);
      const std::vector<int32_t> greedy = ref.Ints(Reference::P(i, "greedy"));
      const std::vector<float> glogits = ref.Floats(Reference::P(i, "greedy_logits"));
      const int64_t n = tokens.size(), V = ref.vocab();
      std::vector<float> out = m.Last(tokens);
      const float d_prefill = MaxAbsDiff(out.data(), logits.data() + (n - 1) * V, V);
      EXPECT_LE(d_prefill, kTol) << GetParam() << " p" << i << " prefill, " << be->name();
      float d_decode = 0.0f;
      std::vector<int32_t> ours;
      for (int j = 0; j < kGreedy; ++j) {
        d_decode = std::max(d_decode, MaxAbsDiff(out.data(), glogits.data() + j * V, V));
        const int32_t next = Argmax(out.data(), V);
        ours.push_back(next);
        if (j + 1 < kGreedy) out = m.Last(&next, 1);
      }
      EXPECT_LE(d_decode, kTol) << GetParam() << " p" << i << " decode, " << be->name();
      EXPECT_EQ(ours, greedy) << GetParam() << " p" << i << " greedy, " << be->name();
      std::printf(
          "[ diff ] %-14s p%d len %3lld  prefill %.2e  greedy-decode %.2e  tokens %s  (%s)\n",
          GetParam(), i, static_cast<long long>(n), d_prefill, d_decode,
          ours == greedy ? "identical" : "DIFFER", be->name().c_str());
    }
  }
}

// Every prompt position through single-token forwards (recurrent form) and
// through uneven forwards (chunked form carried across forwards).
TEST_P(Qwen35Exactness, EveryPositionRecurrentAndBlockwise) {
  Reference ref(GetParam());
  ASSERT_TRUE(ref.ok());
  const int64_t V = ref.vocab();
  for (const auto& be : Backends()) {
    for (int i = 0; i < kPrompts; ++i) {
      const std::vector<int32_t> tokens = ref.Tokens(i);
      const std::vector<float> logits = ref.Logits(i);
      const int64_t n = tokens.size();
      TestModel rec(dir(), be->iface());
      ASSERT_TRUE(rec.ok()) << rec.open_error();
      float d_rec = 0.0f;
      for (int64_t t = 0; t < n; ++t) {
        std::vector<float> out = rec.Last(&tokens[t], 1);
        d_rec = std::max(d_rec, MaxAbsDiff(out.data(), logits.data() + t * V, V));
      }
      EXPECT_LE(d_rec, kTol) << GetParam() << " p" << i << " recurrent, " << be->name();
      // Forwards of 37, 70, 5, ...: chunk boundaries of the delta rule fall inside them.
      TestModel blk(dir(), be->iface());
      ASSERT_TRUE(blk.ok()) << blk.open_error();
      float d_blk = 0.0f;
      const int64_t sizes[] = {37, 70, 5};
      int64_t s = 0;
      for (int b = 0; s < n; ++b) {
        const int64_t len = std::min(sizes[b % 3], n - s);
        std::vector<float> out = blk.Last(tokens.data() + s, len);
        s += len;
        d_blk = std::max(d_blk, MaxAbsDiff(out.data(), logits.data() + (s - 1) * V, V));
      }
      EXPECT_LE(d_blk, kTol) << GetParam() << " p" << i << " blockwise, " << be->name();
      std::printf("[ diff ] %-14s p%d len %3lld  recurrent %.2e  blockwise %.2e  (%s)\n",
                  GetParam(), i, static_cast<long long>(n), d_rec, d_blk, be->name().c_str());
    }
  }
}

// OXI_LOGITS_ALL: every position's logits against transformers', in one
// forward and with the plugin's own prefill blocks (prefill_chunk 50); its
// last row is what OXI_LOGITS_LAST gives.
TEST_P(Qwen35Exactness, LogitsOfEveryPosition) {
  Reference ref(GetParam());
  ASSERT_TRUE(ref.ok());
  const int64_t V = ref.vocab();
  for (const auto& be : Backends()) {
    for (int i : {1, 3, 4}) {
      const std::vector<int32_t> tokens = ref.Tokens(i);
      const std::vector<float> logits = ref.Logits(i);
      const int64_t n = tokens.size();
      float d[2] = {0.0f, 0.0f};
      for (int32_t chunk : {0, 50}) {
        OpenOptions o;
        o.prefill_chunk = chunk;
        TestModel m(dir(), be->iface(), o);
        ASSERT_TRUE(m.ok()) << m.open_error();
        std::vector<Entry> e(1);
        e[0].tokens = tokens;
        e[0].logits = OXI_LOGITS_ALL;
        const Result r = m.Forward(&e);
        ASSERT_TRUE(r.ok()) << r.message;
        ASSERT_EQ(e[0].out.size(), static_cast<size_t>(n * V));
        d[chunk != 0] = MaxAbsDiff(e[0].out.data(), logits.data(), n * V);
        EXPECT_LE(d[chunk != 0], kTol) << GetParam() << " p" << i << " chunk " << chunk;
        TestModel last(dir(), be->iface(), o);
        ASSERT_TRUE(last.ok());
        const std::vector<float> lo = last.Last(tokens);
        // The LM head over n rows may sum in another order than over one.
        EXPECT_LE(MaxAbsDiff(lo.data(), e[0].out.data() + (n - 1) * V, V), 1e-5f)
            << "LAST differs from ALL's last row, " << be->name();
      }
      std::printf("[ diff ] %-14s p%d len %3lld  all positions %.2e  prefill_chunk=50 %.2e  (%s)\n",
                  GetParam(), i, static_cast<long long>(n), d[0], d[1], be->name().c_str());
    }
  }
}

// Weights converted at load: to F32 (exact: the stored BF16 values are kept)
// and to Q8_0 / Q4_0, a smoke test (opens, runs, stays near). These tiny
// random models are very sensitive to weight noise: fake-quantising the
// weights alone to Q8_0 in transformers moves the tied model's logits by 0.24.
TEST_P(Qwen35Exactness, ConvertedWeights) {
  Reference ref(GetParam());
  ASSERT_TRUE(ref.ok());
  const std::vector<int32_t> tokens = ref.Tokens(4);
  const std::vector<float> logits = ref.Logits(4);
  const int64_t n = tokens.size(), V = ref.vocab();
  const float* want = logits.data() + (n - 1) * V;
  for (const auto& be : Backends()) {
    OpenOptions o;
    o.weight_dtype = OXI_DTYPE_F32;
    o.use_mmap = 0;
    TestModel f32(dir(), be->iface(), o);
    ASSERT_TRUE(f32.ok()) << f32.open_error();
    std::vector<float> out = f32.Last(tokens);
    const float d = MaxAbsDiff(out.data(), want, V);
    EXPECT_LE(d, kTol) << be->name();
    std::printf("[ diff ] %-14s p4 weights f32 at load %.2e  (%s)\n", GetParam(), d,
                be->name().c_str());
    for (oxi_dtype q : {OXI_DTYPE_Q8_0, OXI_DTYPE_Q4_0}) {
      o.weight_dtype = q;
      o.use_mmap = 1;
      TestModel m(dir(), be->iface(), o);
      ASSERT_TRUE(m.ok()) << m.open_error();
      out = m.Last(tokens);
      const float dq = MaxAbsDiff(out.data(), want, V);
      EXPECT_LE(dq, q == OXI_DTYPE_Q8_0 ? 0.4f : 3.0f) << oxi_dtype_name(q) << " " << be->name();
      std::printf("[ diff ] %-14s p4 weights %s at load %.2e  (%s)\n", GetParam(),
                  oxi_dtype_name(q), dq, be->name().c_str());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Qwen35Exactness, ::testing::ValuesIn(kFixtures));

}  // namespace
}  // namespace test
}  // namespace qwen35
}  // namespace oxinfer
