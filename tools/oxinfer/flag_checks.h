// Checks of flag values before any work starts: a negative count is refused
// (not silently taken as the default), counts are bounded (docs/limits.md),
// and every folder named by --plugin-dir must exist. Errors name the flag.
#ifndef OXINFER_TOOLS_OXINFER_FLAG_CHECKS_H_
#define OXINFER_TOOLS_OXINFER_FLAG_CHECKS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"

namespace oxinfer {

// OK when min <= value <= max; otherwise "--flag=value: ...".
absl::Status CheckCountFlag(const char* flag, int64_t value, int64_t min, int64_t max);

// OK when value is finite and min <= value <= max.
absl::Status CheckRealFlag(const char* flag, double value, double min, double max);

// Every colon-separated entry of --plugin-dir is an existing folder.
absl::Status CheckPluginDirs(const std::string& plugin_dirs);

}  // namespace oxinfer

#endif  // OXINFER_TOOLS_OXINFER_FLAG_CHECKS_H_
