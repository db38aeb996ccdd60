// With AVX2 masked off through OXINFER_CPU_MASK, as on a CPU without it, the
// x86 SIMD variants must decline through score() (without executing any wide
// instruction) and the scalar variant must still load and compute.
#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "core/cpu_features.h"
#include "core/host_services.h"
#include "gtest/gtest.h"
#include "oxinfer/plugin_abi.h"

namespace {

std::vector<std::string>* g_paths = nullptr;

TEST(CpuMask, SimdVariantsDeclineScalarServes) {
  ASSERT_EQ(oxinfer::CpuFeatures() & OXI_CPU_AVX2, 0u) << "mask not applied";
  int scalar_ok = 0;
  for (const std::string& path : *g_paths) {
    SCOPED_TRACE(path);
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(h, nullptr) << dlerror();
    auto entry = reinterpret_cast<oxi_plugin_entry_fn>(dlsym(h, OXI_ENTRY_SYMBOL));
    ASSERT_NE(entry, nullptr);
    const oxi_plugin* plugin = entry();
    char reason[256] = {};
    const int32_t score = plugin->score(oxinfer::HostServices(), reason, sizeof reason);
    const std::string name = plugin->name;
    if (name == "cpu-scalar") {
      ASSERT_GT(score, 0);
      char error[256] = {};
      auto* iface = static_cast<const oxi_backend_iface*>(
          plugin->get_interface(oxinfer::HostServices(), error, sizeof error));
      ASSERT_NE(iface, nullptr) << error;
      const float x[2] = {1.0f, 2.0f}, w[4] = {1.0f, 1.0f, 3.0f, -1.0f};
      float y[2] = {};
      ASSERT_EQ(iface->matmul(iface->self, x, 1, 2, w, OXI_DTYPE_F32, 2, y), OXI_OK);
      EXPECT_EQ(y[0], 3.0f);
      EXPECT_EQ(y[1], 1.0f);
      ++scalar_ok;
    } else {
      EXPECT_EQ(score, 0) << name;
      EXPECT_NE(std::string(reason).find("lacks"), std::string::npos) << reason;
    }
  }
  EXPECT_EQ(scalar_ok, 1);
}

}  // namespace

int main(int argc, char** argv) {
  // Before anything reads the CPU features: they are detected once.
  setenv("OXINFER_CPU_MASK", "4", 1);  // OXI_CPU_AVX2
  testing::InitGoogleTest(&argc, argv);
  g_paths = new std::vector<std::string>(argv + 1, argv + argc);
  return RUN_ALL_TESTS();
}
