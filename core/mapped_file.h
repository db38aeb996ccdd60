// The bytes of a whole file, either mapped read-only (mmap, MAP_PRIVATE) or
// read into a 64-byte aligned heap buffer. Shared by the safetensors reader
// (tensor views keep the file alive through a shared_ptr) and anything else
// that wants a file's bytes.
#ifndef OXINFER_CORE_MAPPED_FILE_H_
#define OXINFER_CORE_MAPPED_FILE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"

namespace oxinfer {

enum class LoadMode {
  kMmap,  // map read-only; pages come in on first touch (madvise WILLNEED)
  kRead,  // read the whole file into RAM now
};

class MappedFile {
 public:
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  // NOT_FOUND when the file does not exist, PERMISSION_DENIED / INTERNAL for
  // other open, stat, map or read failures, DATA_LOSS when a read ends early.
  // Every message names the file.
  static absl::StatusOr<std::shared_ptr<const MappedFile>> Open(const std::string& path,
                                                                LoadMode mode);

  const std::string& path() const { return path_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  std::string_view view() const {
    return std::string_view(reinterpret_cast<const char*>(data_), size_);
  }
  LoadMode mode() const { return mode_; }

  // Hands the pages of [p, p + n) back to the kernel (kMmap: the whole pages
  // inside the range leave this process's resident set and are read again
  // from the file if touched; kRead: nothing). For a loader that has copied
  // a tensor elsewhere and wants its peak memory to be the copies only.
  void Release(const void* p, size_t n) const;

 private:
  MappedFile() = default;

  std::string path_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  LoadMode mode_ = LoadMode::kMmap;
  void* mapping_ = nullptr;  // mmap base (kMmap)
  size_t mapping_size_ = 0;
  void* buffer_ = nullptr;  // heap buffer (kRead)
};

// A read-only descriptor of a regular file, closed when destroyed.
class RegularFile {
 public:
  // Opens `path` (symlinks followed) without ever blocking (O_NONBLOCK) and
  // checks it with fstat on the descriptor. Errors name the path and why:
  //   NOT_FOUND           it does not exist;
  //   INVALID_ARGUMENT    a directory, FIFO, device or socket (refused before
  //                       anything is read from it);
  //   RESOURCE_EXHAUSTED  larger than max_bytes (nothing is read);
  //   PERMISSION_DENIED / INTERNAL for other failures.
  static absl::StatusOr<RegularFile> Open(const std::string& path, uint64_t max_bytes = UINT64_MAX);

  RegularFile(RegularFile&& other) noexcept;
  RegularFile& operator=(RegularFile&& other) noexcept;
  ~RegularFile();

  int fd() const { return fd_; }
  uint64_t size() const { return size_; }  // at open time
  const std::string& path() const { return path_; }

  // PreadExactly on this file.
  absl::Status ReadAt(uint64_t offset, size_t n, void* out) const;

 private:
  RegularFile(int fd, uint64_t size, std::string path)
      : fd_(fd), size_(size), path_(std::move(path)) {}

  int fd_ = -1;
  uint64_t size_ = 0;
  std::string path_;
};

// Reads a whole regular file (RegularFile::Open's checks and errors) into a
// string.
absl::StatusOr<std::string> ReadFileToString(const std::string& path,
                                             uint64_t max_bytes = UINT64_MAX);

// Reads up to n bytes at `offset` with pread, retrying short reads; DATA_LOSS
// naming the file when the file ends before n bytes.
absl::Status PreadExactly(int fd, const std::string& path, uint64_t offset, size_t n, void* out);

}  // namespace oxinfer

#endif  // OXINFER_CORE_MAPPED_FILE_H_
