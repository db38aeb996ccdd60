#include "core/cpu_features.h"

#include "core/host_services.h"
#include "gtest/gtest.h"
#include "oxinfer/plugin_abi.h"

namespace oxinfer {
namespace {

TEST(CpuFeaturesTest, ConsistentWithCompilerAndHostTable) {
  const CpuInfo& info = GetCpuInfo();
  EXPECT_GT(info.logical_cores, 0);
  EXPECT_GT(info.memory_total_bytes, 0);
#if defined(__x86_64__)
  // Features the compiler assumes for this build must be present.
#if defined(__AVX2__)
  EXPECT_TRUE(info.features & OXI_CPU_AVX2);
#endif
  // AVX2 implies AVX, and each wide feature needs the OS to save its state.
  if (info.features & OXI_CPU_AVX2) {
    EXPECT_TRUE(info.features & OXI_CPU_AVX);
  }
  if (info.features & OXI_CPU_AVX512BW) {
    EXPECT_TRUE(info.features & OXI_CPU_AVX512F);
  }
  EXPECT_EQ(__builtin_cpu_supports("avx2") != 0, (info.features & OXI_CPU_AVX2) != 0);
  EXPECT_EQ(__builtin_cpu_supports("fma") != 0, (info.features & OXI_CPU_FMA) != 0);
#endif
#if defined(__aarch64__)
  EXPECT_TRUE(info.features & OXI_CPU_NEON);
#endif
  const oxi_host_services* host = HostServices();
  EXPECT_EQ(host->struct_size, sizeof(oxi_host_services));
  EXPECT_EQ(host->abi_major, static_cast<uint32_t>(OXI_ABI_MAJOR));
  EXPECT_EQ(host->cpu_features(), info.features);
  EXPECT_GE(host->num_threads(), 1);
  void* p = host->aligned_alloc(100);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  host->aligned_free(p);
}

TEST(CpuFeaturesTest, NamesListSetBits) {
  EXPECT_EQ(CpuFeatureNames(0), "(none)");
  EXPECT_EQ(CpuFeatureNames(OXI_CPU_AVX2 | OXI_CPU_FMA), "avx2 fma");
}

}  // namespace
}  // namespace oxinfer
