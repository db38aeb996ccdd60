// The Hub's model-info answer (GET /api/models/ORG/NAME/revision/REV?blobs=true):
// the commit the revision names and the repository's files.
#ifndef OXINFER_CORE_HUB_MODEL_INFO_H_
#define OXINFER_CORE_HUB_MODEL_INFO_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace oxinfer::hub {

struct RepoFile {
  std::string path;        // relative, '/'-separated, checked safe
  int64_t size = -1;       // -1: not given
  std::string lfs_sha256;  // "" unless stored in LFS
};

struct ModelInfo {
  std::string commit;  // 40 hex digits
  std::vector<RepoFile> files;
};

// Parses the answer strictly: `sha` a commit hash, `siblings` an array of
// objects with `rfilename`; a file path that is absolute, has "." or ".."
// or empty parts, a backslash or a control character is refused (it would
// escape the snapshot folder), as are duplicates and negative sizes.
absl::StatusOr<ModelInfo> ParseModelInfo(absl::string_view json);

// True for a path that stays inside the folder it is relative to.
bool IsSafeRelativePath(absl::string_view path);

}  // namespace oxinfer::hub

#endif  // OXINFER_CORE_HUB_MODEL_INFO_H_
