// Check mode: every op the arena runs is recomputed on the CPU; the report
// shows (near) zero for correct ops and catches a wrong one.
#include <memory>

#include "core/backend_dispatch.h"
#include "gtest/gtest.h"
#include "tests/backends/dispatch_test_util.h"
#include "tests/backends/mixed_program.h"

namespace oxinfer {
namespace testing {
namespace {

std::unique_ptr<ComposedBackend> Checked() {
  auto c = ComposedBackend::Create(ArenaBackend(), PlainCpuBackend(),
                                   DispatchOptions{/*profile=*/true, /*check=*/true});
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? std::move(*c) : nullptr;
}

TEST(DispatchCheckTest, CorrectOpsShowNoError) {
  auto composed = Checked();
  sdk::Compute cx(composed->iface());
  auto outs = RunMixedProgram(cx);
  ASSERT_TRUE(outs.ok()) << MessageOf(outs.status());
  const dispatch::CheckLog& log = *composed->check_log();
  EXPECT_EQ(log.entry(OXI_OP_MATMUL).checked, 5);
  EXPECT_EQ(log.entry(OXI_OP_RMS_NORM).checked, 3);
  EXPECT_LE(log.entry(OXI_OP_MATMUL).worst, 1e-6);
  EXPECT_LE(log.entry(OXI_OP_RMS_NORM).worst, 1e-6);
  EXPECT_EQ(log.entry(OXI_OP_UNARY).checked, 0);  // ran on the CPU: nothing to check
  const std::string report = composed->CheckReport();
  EXPECT_NE(report.find("rms_norm"), std::string::npos) << report;
  EXPECT_NE(report.find("x[4][64] f32"), std::string::npos) << report;
  // Check copies are not the profile's.
  auto plain = ComposedBackend::Create(ArenaBackend(), PlainCpuBackend(),
                                       DispatchOptions{/*profile=*/true, /*check=*/false});
  ASSERT_TRUE(plain.ok());
  sdk::Compute cx2((*plain)->iface());
  ASSERT_TRUE(RunMixedProgram(cx2).ok());
  for (auto side : {dispatch::kAccel, dispatch::kCpu}) {
    EXPECT_EQ(composed->profile()->copies(side).copies, (*plain)->profile()->copies(side).copies);
  }
}

TEST(DispatchCheckTest, AWrongOpIsCaught) {
  ScopedEnv wrong("OXINFER_ARENA_WRONG_RMS_NORM", "1");
  auto composed = Checked();
  sdk::Compute cx(composed->iface());
  auto outs = RunMixedProgram(cx);
  ASSERT_TRUE(outs.ok()) << MessageOf(outs.status());
  const dispatch::CheckLog& log = *composed->check_log();
  EXPECT_GT(log.entry(OXI_OP_RMS_NORM).worst, 0.3);  // outputs 1.5x: |a-b|/|b| = 0.5
  // The matmuls that read its results are recomputed from the same inputs.
  EXPECT_LE(log.entry(OXI_OP_MATMUL).worst, 1e-6);
  const std::string report = composed->CheckReport();
  EXPECT_NE(report.find("0.5"), std::string::npos) << report;
}

TEST(DispatchCheckTest, CheckedResultsAreTheAcceleratorsOwn) {
  // The check mode observes; it does not replace the accelerator's results.
  std::vector<std::vector<float>> checked, unchecked;
  {
    ScopedEnv wrong("OXINFER_ARENA_WRONG_RMS_NORM", "1");
    auto composed = Checked();
    sdk::Compute cx(composed->iface());
    auto outs = RunMixedProgram(cx);
    ASSERT_TRUE(outs.ok());
    checked = *outs;
    auto plain = ComposedBackend::Create(ArenaBackend(), PlainCpuBackend(), DispatchOptions{});
    ASSERT_TRUE(plain.ok());
    sdk::Compute cx2((*plain)->iface());
    auto outs2 = RunMixedProgram(cx2);
    ASSERT_TRUE(outs2.ok());
    unchecked = *outs2;
  }
  ASSERT_EQ(checked.size(), unchecked.size());
  for (size_t i = 0; i < checked.size(); ++i) EXPECT_TRUE(SameBits(checked[i], unchecked[i]));
}

}  // namespace
}  // namespace testing
}  // namespace oxinfer
