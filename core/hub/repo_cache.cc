#include "core/hub/repo_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "core/engine/atomic_file.h"
#include "core/hub/repo_spec.h"

namespace oxinfer::hub {
namespace {

std::string ParentOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, std::max<size_t>(slash, 1));
}

}  // namespace

absl::Status MakeDirectories(const std::string& path) {
  if (path.empty()) return absl::OkStatus();
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return absl::OkStatus();
    return absl::FailedPreconditionError(absl::StrFormat("%s exists and is not a folder", path));
  }
  const std::string parent = ParentOf(path);
  if (parent != path) {
    absl::Status s = MakeDirectories(parent);
    if (!s.ok()) return s;
  }
  if (::mkdir(path.c_str(), 0777) != 0 && errno != EEXIST) {
    return absl::PermissionDeniedError(
        absl::StrFormat("cannot create the folder %s: %s", path, std::strerror(errno)));
  }
  return absl::OkStatus();
}

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

RepoCache::RepoCache(const std::string& cache_dir, absl::string_view repo_id)
    : cache_dir_(cache_dir),
      folder_(absl::StrCat("models--", absl::StrReplaceAll(repo_id, {{"/", "--"}}))),
      root_(absl::StrCat(cache_dir, "/", folder_)) {}

std::string RepoCache::BlobPath(absl::string_view etag) const {
  return absl::StrCat(root_, "/blobs/", etag);
}

std::string RepoCache::IncompletePath(absl::string_view etag) const {
  return absl::StrCat(BlobPath(etag), ".incomplete");
}

std::string RepoCache::LockPath(absl::string_view etag) const {
  return absl::StrCat(cache_dir_, "/.locks/", folder_, "/", etag, ".lock");
}

std::string RepoCache::SnapshotDir(absl::string_view commit) const {
  return absl::StrCat(root_, "/snapshots/", commit);
}

std::string RepoCache::SnapshotFile(absl::string_view commit, absl::string_view path) const {
  return absl::StrCat(SnapshotDir(commit), "/", path);
}

absl::StatusOr<std::string> RepoCache::CachedCommit(absl::string_view revision) const {
  struct stat st;
  if (IsCommitHash(revision) && ::stat(SnapshotDir(revision).c_str(), &st) == 0) {
    return std::string(revision);
  }
  std::ifstream in(absl::StrCat(root_, "/refs/", revision));
  std::stringstream text;
  text << in.rdbuf();
  const std::string commit(absl::StripAsciiWhitespace(text.str()));
  if (!in || !IsCommitHash(commit)) {
    return absl::NotFoundError(absl::StrFormat("no revision '%s' in %s", revision, root_));
  }
  return commit;
}

absl::Status RepoCache::WriteRef(absl::string_view revision, absl::string_view commit) const {
  const std::string path = absl::StrCat(root_, "/refs/", revision);
  absl::Status s = MakeDirectories(ParentOf(path));
  if (!s.ok()) return s;
  return engine::WriteFileAtomically(path, commit);
}

absl::Status RepoCache::LinkSnapshotFile(absl::string_view commit, absl::string_view path,
                                         absl::string_view etag) const {
  const std::string link = SnapshotFile(commit, path);
  absl::Status s = MakeDirectories(ParentOf(link));
  if (!s.ok()) return s;
  // From snapshots/COMMIT/a/b/file up to the repository folder.
  std::string target = "../../";
  for (const char c : path) {
    if (c == '/') target += "../";
  }
  absl::StrAppend(&target, "blobs/", etag);
  static std::atomic<int> counter{0};
  const std::string tmp = absl::StrFormat("%s.tmp%d.%d", link, ::getpid(), counter++);
  ::unlink(tmp.c_str());
  if (::symlink(target.c_str(), tmp.c_str()) != 0 || ::rename(tmp.c_str(), link.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return absl::PermissionDeniedError(
        absl::StrFormat("cannot link %s to %s: %s", link, target, std::strerror(err)));
  }
  return absl::OkStatus();
}

}  // namespace oxinfer::hub
