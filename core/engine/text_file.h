// Reading a checkpoint's small text files (config.json, generation_config.json,
// model_index.json): regular files only, bounded in size, so that a FIFO or a
// device named like a config cannot hang or exhaust the host.
#ifndef OXINFER_CORE_ENGINE_TEXT_FILE_H_
#define OXINFER_CORE_ENGINE_TEXT_FILE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace oxinfer::engine {

// The text of `path`: NOT_FOUND when there is no such file, else an error
// naming the path (not a regular file, larger than max_bytes, unreadable).
absl::StatusOr<std::string> ReadTextFile(const std::string& path,
                                         uint64_t max_bytes = uint64_t{16} << 20);

}  // namespace oxinfer::engine

#endif  // OXINFER_CORE_ENGINE_TEXT_FILE_H_
