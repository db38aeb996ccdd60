#include "core/hub/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "core/hub/repo_cache.h"

namespace oxinfer::hub {

absl::StatusOr<FileLock> FileLock::Acquire(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash != std::string::npos) {
    absl::Status s = MakeDirectories(path.substr(0, slash));
    if (!s.ok()) return s;
  }
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) {
    return absl::PermissionDeniedError(
        absl::StrFormat("cannot open the lock file %s: %s", path, std::strerror(errno)));
  }
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    const int err = errno;
    ::close(fd);
    return absl::PermissionDeniedError(
        absl::StrFormat("cannot lock %s: %s", path, std::strerror(err)));
  }
  return FileLock(fd);
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

}  // namespace oxinfer::hub
