#include "fuzz/corpus_check.h"

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace oxinfer {
namespace {

std::vector<std::string> Files(const std::string& dir) {
  std::vector<std::string> files;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return files;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") files.push_back(name);
  }
  closedir(d);
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

void CheckSeedCorpus(const std::string& dir, size_t min_seeds, FuzzParseFn parse) {
  const std::vector<std::string> files = Files(dir);
  ASSERT_GE(files.size(), min_seeds) << "seed corpus not found under " << dir;
  int valid = 0, bad = 0;
  for (const std::string& name : files) {
    SCOPED_TRACE(name);
    std::ifstream in(dir + "/" + name, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string bytes = ss.str();
    const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
    absl::Status s = parse(data, bytes.size());
    if (absl::StartsWith(name, "valid_")) {
      EXPECT_TRUE(s.ok()) << s;
      ++valid;
    } else if (absl::StartsWith(name, "bad_")) {
      EXPECT_FALSE(s.ok());
      ++bad;
    }
    for (size_t n = 0; n < bytes.size(); ++n) parse(data, n).IgnoreError();
  }
  EXPECT_GT(valid, 0);
  EXPECT_GT(bad, 0);
}

}  // namespace oxinfer
