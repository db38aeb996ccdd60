// main() of the op tests: the plugin files to test are the arguments.
#include <cstdio>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/backends/cpu/cpu_test_util.h"

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s liboxinfer_cpu_*.so...\n", argv[0]);
    return 2;
  }
  oxinfer::cpu_test::SetPluginPaths(std::vector<std::string>(argv + 1, argv + argc));
  // A backend that cannot run here (a CPU variant without its ISA, a GPU
  // backend without a device) is skipped, and says why.
  for (const auto& v : oxinfer::cpu_test::Verdicts()) {
    if (!v.loaded) std::printf("[ skipped ] %s: %s\n", v.path.c_str(), v.reason.c_str());
  }
  return RUN_ALL_TESTS();
}
