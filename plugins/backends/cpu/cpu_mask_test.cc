// With AVX2 masked off through OXINFER_CPU_MASK, as on a CPU without it, the
// x86 SIMD variants must decline through score() (without executing any wide
// instruction) and the scalar variant must still load and compute.
#include <cstdlib>
#include <string>
#include <vector>

#include "core/cpu_features.h"
#include "gtest/gtest.h"
#include "plugins/backends/cpu/cpu_test_util.h"

namespace oxinfer {
namespace cpu_test {
namespace {

TEST(CpuMask, SimdVariantsDeclineScalarServes) {
  ASSERT_EQ(CpuFeatures() & OXI_CPU_AVX2, 0u) << "mask not applied";
  int scalar_ok = 0;
  for (const PluginVerdict& v : Verdicts()) {
    SCOPED_TRACE(v.path);
    if (v.name == "cpu-scalar") {
      EXPECT_TRUE(v.loaded) << v.reason;
    } else {
      EXPECT_FALSE(v.loaded);
      EXPECT_EQ(v.score, 0) << v.name;
      EXPECT_NE(v.reason.find("lacks"), std::string::npos) << v.reason;
    }
  }
  for (const Variant& variant : Variants()) {
    ASSERT_EQ(variant.name, "cpu-scalar");
    Dev dev(variant);
    auto a = Make<oxi_matmul_args>(OXI_OP_MATMUL);
    a.x = dev.F32({1.0f, 2.0f}, 1, 2);
    a.w = dev.F32({1.0f, 1.0f, 3.0f, -1.0f}, 2, 2);
    a.y = dev.EmptyF32(1, 2);
    ASSERT_EQ(dev.Run(a.op), OXI_OK) << dev.error();
    EXPECT_EQ(dev.ReadF32(a.y), std::vector<float>({3.0f, 1.0f}));
    ++scalar_ok;
  }
  EXPECT_EQ(scalar_ok, 1);
}

}  // namespace
}  // namespace cpu_test
}  // namespace oxinfer

int main(int argc, char** argv) {
  // Before anything reads the CPU features: they are detected once.
  setenv("OXINFER_CPU_MASK", "4", 1);  // OXI_CPU_AVX2
  testing::InitGoogleTest(&argc, argv);
  oxinfer::cpu_test::SetPluginPaths(std::vector<std::string>(argv + 1, argv + argc));
  return RUN_ALL_TESTS();
}
