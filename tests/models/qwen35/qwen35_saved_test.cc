// --save-quantized for Qwen 3.5: the weights the plugin reports while it
// opens a fixture at q8_0 / q4_0 (record_weight, ABI 2.3) are written as a
// folder (core/quantized_writer.h) and opened again with the same backend.
// The logits of every prompt's prefill and of greedy decode steps are
// bit-identical to quantising at load; the folder holds the matrices in the
// layout the backend prefers (the _x8 forms on the SIMD CPUs), so they load
// as stored.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/models/qwen35/qwen35_test_support.h"
#include "tests/support/quantized_save.h"

namespace oxinfer {
namespace qwen35 {
namespace test {
namespace {

constexpr int kSteps = 8;  // greedy steps after each prompt

struct Case {
  const char* fixture;
  oxi_dtype dtype;
};

class Qwen35Saved : public ::testing::TestWithParam<Case> {};

TEST_P(Qwen35Saved, LogitsAreBitIdenticalToQuantisingAtLoad) {
  const Case c = GetParam();
  for (const auto& be : Backends()) {
    const std::string name = std::string(c.fixture) + "_" + oxi_dtype_name(c.dtype);
    oxinfer::testing::QuantizedSave save(name, FixtureDir(c.fixture), c.dtype);
    ASSERT_TRUE(save.status.ok()) << save.status;
    OpenOptions at_load;
    at_load.weight_dtype = c.dtype;
    at_load.record_weight = &oxinfer::testing::QuantizedSave::Record;
    at_load.record_ctx = &save;
    TestModel a(FixtureDir(c.fixture), be->iface(), at_load);
    ASSERT_TRUE(a.ok()) << a.open_error();
    ASSERT_TRUE(save.Finish(be->name()).ok());
    OpenOptions saved;
    saved.weight_dtype = c.dtype;  // what the host passes for a saved folder
    TestModel b(save.out, be->iface(), saved);
    ASSERT_TRUE(b.ok()) << b.open_error();
    ASSERT_EQ(a.vocab(), b.vocab());
    const int64_t V = a.vocab();
    Reference ref(c.fixture);
    ASSERT_TRUE(ref.ok());
    for (int i = 0; i < kPrompts; ++i) {
      oxinfer::testing::ExpectGreedyLogitsIdentical(
          [&](const int32_t* t, size_t n) { return a.Last(t, static_cast<int64_t>(n)); },
          [&](const int32_t* t, size_t n) { return b.Last(t, static_cast<int64_t>(n)); },
          ref.Tokens(i), V, kSteps,
          std::string(c.fixture) + " p" + std::to_string(i) + ", " + be->name());
      a.Free(0);
      b.Free(0);
    }
    oxinfer::testing::ExpectSavedLayout(save.out, be->iface(), be->name(), c.dtype, c.fixture);
  }
}

// A save without --draft mtp still holds the MTP head (loaded only to be
// recorded): the saved folder drafts as quantising at load with the head does.
TEST(Qwen35SavedMtp, ASaveWithoutDraftingKeepsTheHead) {
  for (const auto& be : Backends()) {
    oxinfer::testing::QuantizedSave save("tiny_mtp_q8_0", FixtureDir("tiny_mtp"), OXI_DTYPE_Q8_0);
    ASSERT_TRUE(save.status.ok()) << save.status;
    OpenOptions saving;
    saving.weight_dtype = OXI_DTYPE_Q8_0;
    saving.record_weight = &oxinfer::testing::QuantizedSave::Record;
    saving.record_ctx = &save;
    {
      TestModel s(FixtureDir("tiny_mtp"), be->iface(), saving);
      ASSERT_TRUE(s.ok()) << s.open_error();
      EXPECT_EQ(s.info().capabilities & OXI_MODEL_DRAFT, 0u) << "drafting without --draft mtp";
    }
    ASSERT_TRUE(save.Finish(be->name()).ok());
    OpenOptions drafting;
    drafting.weight_dtype = OXI_DTYPE_Q8_0;
    drafting.draft = 1;
    TestModel a(FixtureDir("tiny_mtp"), be->iface(), drafting);
    TestModel b(save.out, be->iface(), drafting);
    ASSERT_TRUE(a.ok()) << a.open_error();
    ASSERT_TRUE(b.ok()) << b.open_error();
    const std::vector<int32_t> prompt = {5, 17, 3, 42, 9, 28};
    ASSERT_EQ(a.Last(prompt), b.Last(prompt));
    const Drafts x = a.Draft(0, 11, 4), y = b.Draft(0, 11, 4);
    ASSERT_TRUE(x.result.ok());
    ASSERT_TRUE(y.result.ok());
    EXPECT_EQ(x.tokens, y.tokens) << be->name();
    EXPECT_EQ(x.logits, y.logits) << be->name() << ": draft logits differ";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, Qwen35Saved,
    ::testing::Values(Case{"tiny_tied", OXI_DTYPE_Q8_0}, Case{"tiny_tied", OXI_DTYPE_Q4_0},
                      Case{"tiny_untied", OXI_DTYPE_Q8_0}, Case{"tiny_untied", OXI_DTYPE_Q4_0}),
    [](const ::testing::TestParamInfo<Case>& info) {
      return std::string(info.param.fixture) + "_" + oxi_dtype_name(info.param.dtype);
    });

}  // namespace
}  // namespace test
}  // namespace qwen35
}  // namespace oxinfer
