// An exclusive advisory lock (flock) on a lock file, held for the object's
// life: keeps two processes (or two threads of one) from writing one blob.
#ifndef OXINFER_CORE_HUB_FILE_LOCK_H_
#define OXINFER_CORE_HUB_FILE_LOCK_H_

#include <string>

#include "absl/status/statusor.h"

namespace oxinfer::hub {

class FileLock {
 public:
  // Waits until the lock on `path` (created with its folders) is ours.
  static absl::StatusOr<FileLock> Acquire(const std::string& path);
  FileLock(FileLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  FileLock& operator=(FileLock&&) = delete;
  ~FileLock();

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace oxinfer::hub

#endif  // OXINFER_CORE_HUB_FILE_LOCK_H_
