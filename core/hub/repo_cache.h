// One repository's folder in the huggingface_hub cache layout, shared with
// transformers and huggingface-cli:
//   models--ORG--NAME/blobs/ETAG            file contents, named by ETag (the
//                                           sha256 of LFS files, else the git
//                                           blob id)
//   models--ORG--NAME/blobs/ETAG.incomplete a download in progress (resumable)
//   models--ORG--NAME/snapshots/COMMIT/PATH relative symlinks into blobs/
//   models--ORG--NAME/refs/REVISION         the commit a branch or tag names
//   .locks/models--ORG--NAME/ETAG.lock      held while a blob is written
// A link appears only after its blob is complete and verified, so whatever a
// snapshot holds is whole.
#ifndef OXINFER_CORE_HUB_REPO_CACHE_H_
#define OXINFER_CORE_HUB_REPO_CACHE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace oxinfer::hub {

class RepoCache {
 public:
  RepoCache(const std::string& cache_dir, absl::string_view repo_id);

  const std::string& root() const { return root_; }
  std::string BlobPath(absl::string_view etag) const;
  std::string IncompletePath(absl::string_view etag) const;
  std::string LockPath(absl::string_view etag) const;
  std::string SnapshotDir(absl::string_view commit) const;
  std::string SnapshotFile(absl::string_view commit, absl::string_view path) const;

  // The commit `revision` names in the cache: a commit hash whose snapshot
  // exists, or what refs/REVISION holds. NOT_FOUND otherwise.
  absl::StatusOr<std::string> CachedCommit(absl::string_view revision) const;
  // refs/REVISION := commit (atomically).
  absl::Status WriteRef(absl::string_view revision, absl::string_view commit) const;
  // snapshots/COMMIT/PATH -> ../../blobs/ETAG (atomically: a temporary link
  // renamed over the name).
  absl::Status LinkSnapshotFile(absl::string_view commit, absl::string_view path,
                                absl::string_view etag) const;

 private:
  std::string cache_dir_;
  std::string folder_;  // models--ORG--NAME
  std::string root_;
};

// mkdir -p.
absl::Status MakeDirectories(const std::string& path);

// True when `path` (after symlinks) is a regular file.
bool IsRegularFile(const std::string& path);

}  // namespace oxinfer::hub

#endif  // OXINFER_CORE_HUB_REPO_CACHE_H_
