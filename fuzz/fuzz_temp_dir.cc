#include "fuzz/fuzz_temp_dir.h"

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>

namespace oxinfer {

std::string FuzzTempDir(const std::string& name) {
  static const std::string root = [] {
    // Memory first: every input is written, and a disk's writeback costs
    // more than the parse.
    const char* test_tmp = std::getenv("TEST_TMPDIR");
    for (const char* base : {"/dev/shm", test_tmp, "/tmp"}) {
      if (base == nullptr) continue;
      std::string t = std::string(base) + "/oxinfer_fuzz_XXXXXX";
      if (::mkdtemp(t.data()) != nullptr) return t;
    }
    __builtin_trap();
  }();
  const std::string dir = root + "/" + name;
  ::mkdir(dir.c_str(), 0755);
  return dir;
}

void WriteFuzzFile(const std::string& path, absl::string_view bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) __builtin_trap();
  if (std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) __builtin_trap();
  if (std::fclose(f) != 0) __builtin_trap();
}

}  // namespace oxinfer
