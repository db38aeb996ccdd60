// The compositions over the real CPU backend (plugins/backends/cpu, every
// variant this machine runs): the arena's ops differ from the CPU's own
// kernels only by rounding, which the check mode measures op by op (same
// inputs), and results stay close to the CPU alone.
#include <memory>
#include <string>
#include <vector>

#include "core/backend_dispatch.h"
#include "gtest/gtest.h"
#include "tests/backends/dispatch_test_util.h"
#include "tests/backends/host_accel.h"
#include "tests/backends/mixed_program.h"
#include "tests/backends/random_program.h"
#include "tests/support/test_backends.h"

namespace oxinfer {
namespace testing {
namespace {

std::vector<std::string> CpuVariants() {
  std::vector<std::string> loaded;
  for (const char* v : {"scalar", "avx2", "avx512"}) {
    const std::string path =
        Runfile(std::string("plugins/backends/cpu/liboxinfer_cpu_") + v + ".so");
    if (LoadPluginIface(path, OXI_PLUGIN_BACKEND).ok()) loaded.push_back(path);
  }
  return loaded;
}

const oxi_backend_iface* Cpu(const std::string& path) {
  return static_cast<const oxi_backend_iface*>(*LoadPluginIface(path, OXI_PLUGIN_BACKEND));
}

// Relative error bars: one op (the check mode compares from equal inputs),
// and results after chains of ops, where rounding differences propagate
// (measured below 4e-7 over 300 random steps).
constexpr double kOpBar = 1e-6;
constexpr double kChainBar = 1e-5;

class DispatchCpuTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DispatchCpuTest, ArenaOpsAgreeWithTheCpuOpByOp) {
  const oxi_backend_iface* cpu = Cpu(GetParam());
  EXPECT_NE(cpu->flags & OXI_BACKEND_COMPLETE, 0u);
  auto composed = ComposedBackend::Create(ArenaBackend(), cpu, DispatchOptions{true, true});
  ASSERT_TRUE(composed.ok()) << composed.status();
  sdk::Compute cx((*composed)->iface());
  auto got = RunMixedProgram(cx);
  ASSERT_TRUE(got.ok()) << MessageOf(got.status());
  const dispatch::CheckLog& log = *(*composed)->check_log();
  EXPECT_EQ(log.entry(OXI_OP_MATMUL).checked, 5);
  EXPECT_EQ(log.entry(OXI_OP_RMS_NORM).checked, 3);
  EXPECT_LE(log.entry(OXI_OP_MATMUL).worst, kOpBar) << (*composed)->CheckReport();
  EXPECT_LE(log.entry(OXI_OP_RMS_NORM).worst, kOpBar) << (*composed)->CheckReport();

  // The results after a chain of such ops (measured: 0 on cpu_scalar, whose
  // loops are the arena's, and below 3e-7 on the SIMD variants).
  sdk::Compute alone(cpu);
  auto reference = RunMixedProgram(alone);
  ASSERT_TRUE(reference.ok());
  ASSERT_EQ(got->size(), reference->size());
  for (size_t i = 0; i < got->size(); ++i) {
    EXPECT_LE(MaxRelativeError((*got)[i], (*reference)[i]), kChainBar) << "output " << i;
  }
}

TEST_P(DispatchCpuTest, AWrongArenaOpIsCaught) {
  ScopedEnv wrong("OXINFER_ARENA_WRONG_RMS_NORM", "1");
  auto composed =
      ComposedBackend::Create(ArenaBackend(), Cpu(GetParam()), DispatchOptions{false, true});
  ASSERT_TRUE(composed.ok());
  sdk::Compute cx((*composed)->iface());
  ASSERT_TRUE(RunMixedProgram(cx).ok());
  EXPECT_GT((*composed)->check_log()->entry(OXI_OP_RMS_NORM).worst, 0.3);
  EXPECT_LE((*composed)->check_log()->entry(OXI_OP_MATMUL).worst, kOpBar);
}

TEST_P(DispatchCpuTest, RandomProgramsStayClose) {
  const oxi_backend_iface* cpu = Cpu(GetParam());
  for (uint32_t seed = 1; seed <= 4; ++seed) {
    auto reference = RunRandomProgram(cpu, seed, 300);
    ASSERT_TRUE(reference.ok()) << MessageOf(reference.status());
    for (const oxi_backend_iface* accel : {ArenaBackend(), HostAccelBackend()}) {
      auto composed = ComposedBackend::Create(accel, cpu, DispatchOptions{});
      ASSERT_TRUE(composed.ok());
      auto got = RunRandomProgram((*composed)->iface(), seed, 300);
      ASSERT_TRUE(got.ok()) << MessageOf(got.status());
      ASSERT_EQ(got->size(), reference->size());
      for (size_t b = 0; b < got->size(); ++b) {
        EXPECT_LE(MaxRelativeError((*got)[b], (*reference)[b]), kChainBar)
            << "seed " << seed << ", " << accel->device_name << ", buffer " << b;
      }
    }
  }
}

TEST_P(DispatchCpuTest, TheTestBackendSpec) {
  auto be = OpenTestBackend(ArenaPath() + "+" + GetParam());
  ASSERT_TRUE(be.ok()) << be.status();
  EXPECT_EQ((*be)->name().substr(0, 10), "arena+cpu_");
  sdk::Compute cx((*be)->iface());
  EXPECT_TRUE(RunMixedProgram(cx).ok());
}

INSTANTIATE_TEST_SUITE_P(Variants, DispatchCpuTest, ::testing::ValuesIn(CpuVariants()));

}  // namespace
}  // namespace testing
}  // namespace oxinfer
