// main() of the Gemma 4 plugin tests: gtest's flags, then the command line of
// gemma4_test_util.h.
#include "gtest/gtest.h"
#include "tests/models/gemma4/gemma4_test_util.h"
#include "tests/support/test_backends.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (!oxinfer::gemma4_test::ParseCommandLine(argc, argv)) return 2;
  // Only backends this machine lacks (vulkan without a device): skipped.
  if (oxinfer::testing::AllSpecsDeclined(oxinfer::gemma4_test::CommandLine().backend_specs)) return 0;
  return RUN_ALL_TESTS();
}
