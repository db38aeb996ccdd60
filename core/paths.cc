#include "core/paths.h"

#include <sys/stat.h>
#include <unistd.h>

#include <climits>

namespace oxinfer {

std::string ExecutableDir() {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return "";
  std::string exe(buf, static_cast<size_t>(n));
  const auto slash = exe.rfind('/');
  return slash == std::string::npos ? "." : exe.substr(0, slash);
}

bool IsDirectory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string DefaultModelDir() {
  const std::string exe = ExecutableDir();
  if (exe.empty()) return "";
  const std::string dir = exe + "/../share/oxinfer/default_model";
  char real[PATH_MAX];
  if (!IsDirectory(dir) || ::realpath(dir.c_str(), real) == nullptr) return "";
  return real;
}

}  // namespace oxinfer
