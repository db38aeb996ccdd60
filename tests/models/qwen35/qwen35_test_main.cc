// main() of the Qwen 3.5 model tests: gtest, then the plugin and backend
// specs of the command line.
#include "gtest/gtest.h"
#include "tests/models/qwen35/qwen35_test_support.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (int rc = oxinfer::qwen35::test::Init(argc, argv)) return rc;
  return RUN_ALL_TESTS();
}
