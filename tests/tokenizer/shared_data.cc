#include "tests/tokenizer/shared_data.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

namespace oxinfer {

std::string RunfilePath(const std::string& rel) {
  const char* srcdir = getenv("TEST_SRCDIR");
  const char* workspace = getenv("TEST_WORKSPACE");
  if (srcdir != nullptr && workspace != nullptr) {
    return std::string(srcdir) + "/" + workspace + "/" + rel;
  }
  return rel;
}

std::string FindTokenizersDir(const std::string& anchor_runfile) {
  if (const char* env = getenv("OXINFER_TOKENIZERS_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  char resolved[PATH_MAX];
  if (realpath(RunfilePath(anchor_runfile).c_str(), resolved) == nullptr) return "";
  std::string dir = resolved;
  for (;;) {
    const size_t slash = dir.rfind('/');
    if (slash == std::string::npos || slash == 0) break;
    dir.resize(slash);
    const std::string candidate = dir + "/shared/data/tokenizers";
    struct stat st;
    if (stat((candidate + "/qwen3/tokenizer.json").c_str(), &st) == 0) return candidate;
  }
  return "";
}

}  // namespace oxinfer
