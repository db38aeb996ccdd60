#include "tools/oxinfer/flag_checks.h"

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace oxinfer {

absl::Status CheckCountFlag(const char* flag, int64_t value, int64_t min, int64_t max) {
  if (value >= min && value <= max) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrFormat("--%s=%d: expected a value from %d to %d", flag, value, min, max));
}

absl::Status CheckRealFlag(const char* flag, double value, double min, double max) {
  if (std::isfinite(value) && value >= min && value <= max) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrFormat("--%s=%g: expected a finite value from %g to %g", flag, value, min, max));
}

absl::Status CheckPluginDirs(const std::string& plugin_dirs) {
  for (absl::string_view dir : absl::StrSplit(plugin_dirs, ':', absl::SkipEmpty())) {
    const std::string d(dir);
    struct stat st;
    if (::stat(d.c_str(), &st) != 0) {
      return absl::NotFoundError(
          absl::StrFormat("--plugin-dir: '%s': %s", d, std::strerror(errno)));
    }
    if (!S_ISDIR(st.st_mode)) {
      return absl::InvalidArgumentError(absl::StrFormat("--plugin-dir: '%s' is not a folder", d));
    }
  }
  return absl::OkStatus();
}

}  // namespace oxinfer
