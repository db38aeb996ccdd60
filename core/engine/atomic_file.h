// Writing output files so that a reader (or a crash) sees the old file or the
// new one, never a part: a temporary file in the same folder, fsync, rename.
#ifndef OXINFER_CORE_ENGINE_ATOMIC_FILE_H_
#define OXINFER_CORE_ENGINE_ATOMIC_FILE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace oxinfer::engine {

// OK when a file can be created next to `path` (tried: a temporary file is
// created and removed), so that long work is not done for nothing.
absl::Status CheckFolderWritable(const std::string& path);

// Replaces `path` with `bytes`. On failure the old file is intact and no
// temporary file is left. A new file gets the mode 0666 less the umask; an
// existing one keeps its mode.
absl::Status WriteFileAtomically(const std::string& path, absl::string_view bytes);

}  // namespace oxinfer::engine

#endif  // OXINFER_CORE_ENGINE_ATOMIC_FILE_H_
