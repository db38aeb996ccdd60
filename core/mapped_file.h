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

// Reads a whole (small) file into a string; NOT_FOUND names the file.
absl::StatusOr<std::string> ReadFileToString(const std::string& path);

// Reads up to n bytes at `offset` with pread, retrying short reads; DATA_LOSS
// naming the file when the file ends before n bytes.
absl::Status PreadExactly(int fd, const std::string& path, uint64_t offset, size_t n, void* out);

}  // namespace oxinfer

#endif  // OXINFER_CORE_MAPPED_FILE_H_
