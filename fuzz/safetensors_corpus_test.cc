// Runs the safetensors fuzz target over its seed corpus with the ordinary
// toolchain, so CI exercises it without clang/libFuzzer. Seeds named valid_*
// must parse, bad_* must be refused.
#include <dirent.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "fuzz/safetensors_header_fuzzer.h"
#include "gtest/gtest.h"

namespace oxinfer {
namespace {

constexpr char kCorpus[] = "fuzz/corpus/safetensors";

std::vector<std::string> CorpusFiles() {
  std::vector<std::string> files;
  DIR* dir = opendir(kCorpus);
  if (dir == nullptr) return files;
  while (dirent* e = readdir(dir)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") files.push_back(name);
  }
  closedir(dir);
  return files;
}

TEST(SafetensorsCorpusTest, EverySeed) {
  const std::vector<std::string> files = CorpusFiles();
  ASSERT_GE(files.size(), 20u) << "seed corpus not found under " << kCorpus;
  int valid = 0, bad = 0;
  for (const std::string& name : files) {
    SCOPED_TRACE(name);
    std::ifstream in(std::string(kCorpus) + "/" + name, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string bytes = ss.str();
    const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
    EXPECT_EQ(LLVMFuzzerTestOneInput(data, bytes.size()), 0);
    absl::Status s = ParseFuzzInput(data, bytes.size());
    if (absl::StartsWith(name, "valid_")) {
      EXPECT_TRUE(s.ok()) << s;
      ++valid;
    } else if (absl::StartsWith(name, "bad_")) {
      EXPECT_FALSE(s.ok());
      ++bad;
    }
    // Every prefix, as a fuzzer mutation would produce.
    for (size_t n = 0; n < bytes.size(); ++n) LLVMFuzzerTestOneInput(data, n);
  }
  EXPECT_GT(valid, 0);
  EXPECT_GT(bad, 0);
}

}  // namespace
}  // namespace oxinfer
