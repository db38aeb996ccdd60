// An accelerator whose memory runs out (the arena limited to 64 KiB by this
// test's environment): what does not fit stays on the CPU, and the ops that
// need it run there, with the same results.
#include <memory>

#include "core/backend_dispatch.h"
#include "gtest/gtest.h"
#include "tests/backends/dispatch_test_util.h"
#include "tests/backends/mixed_program.h"

namespace oxinfer {
namespace testing {
namespace {

TEST(DispatchMemoryTest, OpsRunOnTheCpuWhenTheAcceleratorIsFull) {
  ASSERT_STREQ(std::getenv("OXINFER_ARENA_BYTES"), "65536");
  sdk::Compute plain(PlainCpuBackend());
  auto reference = RunMixedProgram(plain);
  ASSERT_TRUE(reference.ok());
  for (bool check : {false, true}) {
    auto composed = ComposedBackend::Create(ArenaBackend(), PlainCpuBackend(),
                                            DispatchOptions{/*profile=*/true, check});
    ASSERT_TRUE(composed.ok());
    sdk::Compute cx((*composed)->iface());
    auto got = RunMixedProgram(cx);
    ASSERT_TRUE(got.ok()) << MessageOf(got.status());
    ASSERT_EQ(got->size(), reference->size());
    for (size_t i = 0; i < got->size(); ++i) EXPECT_TRUE(SameBits((*got)[i], (*reference)[i]));
    // Some float matmuls could not go to the arena, some did.
    const dispatch::Profile& p = *(*composed)->profile();
    EXPECT_GT(p.op(OXI_OP_MATMUL, dispatch::kCpu).calls, 1);
    EXPECT_GT(
        p.op(OXI_OP_MATMUL, dispatch::kAccel).calls + p.op(OXI_OP_RMS_NORM, dispatch::kAccel).calls,
        0);
  }
}

}  // namespace
}  // namespace testing
}  // namespace oxinfer
