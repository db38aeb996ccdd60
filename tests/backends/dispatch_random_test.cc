// Random op sequences (random_program.h) through compositions must end with
// exactly the bytes the CPU alone computes. The arena fills bytes nobody
// wrote with NaN, so a missing or misplaced copy shows.
#include <memory>
#include <vector>

#include "core/backend_dispatch.h"
#include "gtest/gtest.h"
#include "tests/backends/dispatch_test_util.h"
#include "tests/backends/host_accel.h"
#include "tests/backends/random_program.h"

namespace oxinfer {
namespace testing {
namespace {

constexpr int kBuffers = kRandomProgramBuffers;

std::vector<std::vector<float>> RunOn(const oxi_backend_iface* be, uint32_t seed) {
  auto out = RunRandomProgram(be, seed, 300);
  EXPECT_TRUE(out.ok()) << MessageOf(out.status());
  return out.ok() ? *out : std::vector<std::vector<float>>{};
}

class DispatchRandomTest : public ::testing::TestWithParam<int> {};

TEST_P(DispatchRandomTest, CompositionsMatchTheCpuAlone) {
  const uint32_t seed = 1000 + GetParam();
  const std::vector<std::vector<float>> reference = RunOn(PlainCpuBackend(), seed);
  ASSERT_EQ(reference.size(), static_cast<size_t>(kBuffers));
  struct Config {
    const char* name;
    const oxi_backend_iface* accel;
    bool check;
  } configs[] = {
      {"arena", ArenaBackend(), false},
      {"arena checked", ArenaBackend(), true},
      {"shared host memory", HostAccelBackend(), false},
  };
  for (const Config& c : configs) {
    auto composed = ComposedBackend::Create(c.accel, PlainCpuBackend(),
                                            DispatchOptions{/*profile=*/false, c.check});
    ASSERT_TRUE(composed.ok());
    const std::vector<std::vector<float>> got = RunOn((*composed)->iface(), seed);
    ASSERT_EQ(got.size(), reference.size()) << c.name;
    for (int b = 0; b < kBuffers; ++b) {
      EXPECT_TRUE(SameBits(got[b], reference[b])) << c.name << ", buffer " << b;
    }
    if (c.check) {
      EXPECT_EQ((*composed)->check_log()->entry(OXI_OP_RMS_NORM).worst, 0.0) << seed;
      EXPECT_EQ((*composed)->check_log()->entry(OXI_OP_MATMUL).worst, 0.0) << seed;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, DispatchRandomTest, ::testing::Range(0, 12));

}  // namespace
}  // namespace testing
}  // namespace oxinfer
