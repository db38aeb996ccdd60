#include "tests/support/shared_data.h"

#include <sys/stat.h>

#include <climits>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace oxinfer::testing {
namespace {

bool IsDir(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

std::string FindSharedData(const std::string& committed_runfile) {
  if (const char* env = std::getenv("OXINFER_SHARED_DIR")) {
    const std::string d = std::string(env) + "/data";
    if (IsDir(d)) return d;
  }
  char buf[PATH_MAX];
  if (realpath(committed_runfile.c_str(), buf) == nullptr) return "";
  std::string dir = buf;
  for (;;) {
    const size_t slash = dir.rfind('/');
    if (slash == std::string::npos || slash == 0) return "";
    dir = dir.substr(0, slash);
    if (IsDir(dir + "/shared/data/templates")) return dir + "/shared/data";
  }
}

std::string ReadWholeFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace oxinfer::testing
