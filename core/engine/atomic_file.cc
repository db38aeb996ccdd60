#include "core/engine/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"

namespace oxinfer::engine {
namespace {

std::string FolderOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The umask without changing it (umask() itself would race other threads).
mode_t CurrentUmask() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    absl::string_view v = line;
    if (absl::ConsumePrefix(&v, "Umask:")) {
      return static_cast<mode_t>(std::strtoul(std::string(v).c_str(), nullptr, 8) & 0777);
    }
  }
  return 022;
}

absl::Status Errno(const std::string& what, int err) {
  return absl::PermissionDeniedError(absl::StrFormat("%s: %s", what, std::strerror(err)));
}

// A new temporary file next to `path`; its name in *tmp.
absl::StatusOr<int> CreateTemporary(const std::string& path, std::string* tmp) {
  *tmp = FolderOf(path) + "/." + BaseName(path) + ".XXXXXX";
  const int fd = ::mkstemp(tmp->data());
  if (fd < 0) {
    return Errno(absl::StrFormat("cannot create a file in %s (for %s)", FolderOf(path), path),
                 errno);
  }
  return fd;
}

}  // namespace

absl::Status CheckFolderWritable(const std::string& path) {
  std::string tmp;
  auto fd = CreateTemporary(path, &tmp);
  if (!fd.ok()) return fd.status();
  ::close(*fd);
  ::unlink(tmp.c_str());
  return absl::OkStatus();
}

absl::Status WriteFileAtomically(const std::string& path, absl::string_view bytes) {
  std::string tmp;
  auto fd = CreateTemporary(path, &tmp);
  if (!fd.ok()) return fd.status();
  absl::Status status;
  auto fail = [&](const std::string& what) {
    if (status.ok()) status = Errno(absl::StrFormat("%s %s", what, path), errno);
  };
  struct stat st;
  const mode_t mode =
      ::stat(path.c_str(), &st) == 0 ? (st.st_mode & 07777) : (0666 & ~CurrentUmask());
  if (::fchmod(*fd, mode) != 0) fail("cannot set the mode of");
  for (size_t done = 0; status.ok() && done < bytes.size();) {
    const ssize_t n = ::write(*fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("cannot write");
    if (n > 0) done += static_cast<size_t>(n);
  }
  if (status.ok() && ::fsync(*fd) != 0) fail("cannot flush");
  if (::close(*fd) != 0) fail("cannot close");
  if (status.ok() && ::rename(tmp.c_str(), path.c_str()) != 0) fail("cannot replace");
  if (!status.ok()) {
    ::unlink(tmp.c_str());
    return status;
  }
  // The rename itself reaches the disk with the folder's entry.
  const int dir = ::open(FolderOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  return absl::OkStatus();
}

}  // namespace oxinfer::engine
