#include "core/engine/text_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"

namespace oxinfer::engine {

absl::StatusOr<std::string> ReadTextFile(const std::string& path, uint64_t max_bytes) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int err = errno;
    const std::string message = absl::StrFormat("%s: cannot open: %s", path, std::strerror(err));
    return err == ENOENT || err == ENOTDIR ? absl::NotFoundError(message)
                                           : absl::PermissionDeniedError(message);
  }
  struct stat st;
  absl::Status status;
  std::string text;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    status = absl::InvalidArgumentError(absl::StrFormat("%s: not a regular file", path));
  } else if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    status = absl::InvalidArgumentError(
        absl::StrFormat("%s: %d bytes, more than the %d a text file of a checkpoint may have", path,
                        static_cast<int64_t>(st.st_size), max_bytes));
  } else {
    text.resize(static_cast<size_t>(st.st_size));
    size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::read(fd, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        status = absl::DataLossError(absl::StrFormat("%s: read error after %d bytes: %s", path,
                                                     done, n < 0 ? std::strerror(errno) : "EOF"));
        break;
      }
      done += static_cast<size_t>(n);
    }
  }
  ::close(fd);
  if (!status.ok()) return status;
  return text;
}

}  // namespace oxinfer::engine
