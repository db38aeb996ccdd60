// main() of the Qwen 3.5 model tests: gtest, then the plugin and backend
// specs of the command line.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "gtest/gtest.h"
#include "tests/models/qwen35/qwen35_test_support.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (int rc = oxinfer::qwen35::test::Init(argc, argv)) return rc;
  const int rc = RUN_ALL_TESTS();
  // The backends live to the end of the process (never closed), so the
  // OXINFER_BACKEND_CHECK=1 report a composition prints when closed is
  // printed here.
  const char* check = std::getenv("OXINFER_BACKEND_CHECK");
  if (check != nullptr && std::strcmp(check, "1") == 0) {
    for (const auto& b : oxinfer::qwen35::test::Backends()) {
      if (b->composed() != nullptr) std::fputs(b->composed()->CheckReport().c_str(), stderr);
    }
  }
  return rc;
}
