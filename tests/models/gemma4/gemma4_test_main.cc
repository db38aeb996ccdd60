// main() of the Gemma 4 plugin tests: gtest's flags, then the command line of
// gemma4_test_util.h.
#include "gtest/gtest.h"
#include "tests/models/gemma4/gemma4_test_util.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (!oxinfer::gemma4_test::ParseCommandLine(argc, argv)) return 2;
  return RUN_ALL_TESTS();
}
