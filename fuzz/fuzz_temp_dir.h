// A private folder for fuzz targets whose parsers read files by path (model
// folders, shard indexes): created once per process, in /dev/shm when it is
// writable, else under $TEST_TMPDIR (Bazel's corpus tests) or /tmp. It is
// left behind (a few small files) when the process ends.
#ifndef OXINFER_FUZZ_FUZZ_TEMP_DIR_H_
#define OXINFER_FUZZ_FUZZ_TEMP_DIR_H_

#include <string>

#include "absl/strings/string_view.h"

namespace oxinfer {

// The folder `name` inside this process's fuzz folder (created).
std::string FuzzTempDir(const std::string& name);

// Replaces `path` with `bytes`; traps when it cannot (the fuzz folder is the
// harness's, not the input's).
void WriteFuzzFile(const std::string& path, absl::string_view bytes);

}  // namespace oxinfer

#endif  // OXINFER_FUZZ_FUZZ_TEMP_DIR_H_
