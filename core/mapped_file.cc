#include "core/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"

namespace oxinfer {
namespace {

absl::Status ErrnoError(int err, std::string_view what, const std::string& path) {
  std::string msg = absl::StrFormat("cannot %s '%s': %s", what, path, std::strerror(err));
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return absl::NotFoundError(msg);
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(msg);
    case ENOMEM:
      return absl::ResourceExhaustedError(msg);
    case ELOOP:
    case ENAMETOOLONG:
    case EINVAL:
      return absl::InvalidArgumentError(msg);
    default:
      return absl::InternalError(msg);
  }
}

// What a path that is not a regular file is, for messages.
const char* FileTypeName(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

absl::Status NotRegular(const std::string& path, mode_t mode) {
  return absl::InvalidArgumentError(
      absl::StrFormat("cannot read '%s': it is %s, not a regular file", path, FileTypeName(mode)));
}

}  // namespace

absl::StatusOr<RegularFile> RegularFile::Open(const std::string& path, uint64_t max_bytes) {
  // stat first, so that a device or FIFO is not even opened (opening some
  // devices has effects); fstat on the descriptor below is what counts.
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return ErrnoError(errno, "open", path);
  if (!S_ISREG(st.st_mode)) return NotRegular(path, st.st_mode);
  // O_NONBLOCK: if the path became a FIFO meanwhile, open still returns.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return ErrnoError(errno, "open", path);
  RegularFile file(fd, 0, path);
  if (::fstat(fd, &st) != 0) return ErrnoError(errno, "stat", path);
  if (!S_ISREG(st.st_mode)) return NotRegular(path, st.st_mode);
  file.size_ = static_cast<uint64_t>(st.st_size);
  if (file.size_ > max_bytes) {
    return absl::ResourceExhaustedError(
        absl::StrFormat("cannot read '%s': it is %d bytes, more than the limit of %d", path,
                        file.size_, max_bytes));
  }
  return file;
}

RegularFile::RegularFile(RegularFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), size_(other.size_), path_(std::move(other.path_)) {}

RegularFile& RegularFile::operator=(RegularFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    size_ = other.size_;
    path_ = std::move(other.path_);
  }
  return *this;
}

RegularFile::~RegularFile() {
  if (fd_ >= 0) ::close(fd_);
}

absl::Status RegularFile::ReadAt(uint64_t offset, size_t n, void* out) const {
  return PreadExactly(fd_, path_, offset, n, out);
}

absl::Status PreadExactly(int fd, const std::string& path, uint64_t offset, size_t n, void* out) {
  auto* dst = static_cast<uint8_t*>(out);
  size_t done = 0;
  while (done < n) {
    const size_t chunk = std::min<size_t>(n - done, size_t{1} << 30);
    ssize_t r = pread(fd, dst + done, chunk, static_cast<off_t>(offset + done));
    if (r < 0) {
      if (errno == EINTR) continue;
      return ErrnoError(errno, "read", path);
    }
    if (r == 0) {
      return absl::DataLossError(
          absl::StrFormat("'%s' ended after %d bytes; %d bytes were needed at offset %d", path,
                          offset + done, n, offset));
    }
    done += static_cast<size_t>(r);
  }
  return absl::OkStatus();
}

void MappedFile::Release(const void* p, size_t n) const {
  if (mode_ != LoadMode::kMmap || mapping_ == nullptr || n == 0) return;
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t lo = reinterpret_cast<uintptr_t>(mapping_);
  const uintptr_t hi = lo + mapping_size_;
  // Whole pages inside the range only: a neighbour's bytes stay resident.
  uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + page - 1) / page * page;
  uintptr_t end = (reinterpret_cast<uintptr_t>(p) + n) / page * page;
  begin = std::max(begin, lo);
  end = std::min(end, hi);
  if (begin >= end) return;
  // Read-only file pages: dropping them loses nothing.
  (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

MappedFile::~MappedFile() {
  if (mapping_ != nullptr) munmap(mapping_, mapping_size_);
  std::free(buffer_);
}

absl::StatusOr<std::shared_ptr<const MappedFile>> MappedFile::Open(const std::string& path,
                                                                   LoadMode mode) {
  absl::StatusOr<RegularFile> fd = RegularFile::Open(path);
  if (!fd.ok()) return fd.status();
  if (fd->size() > SIZE_MAX) {
    return absl::ResourceExhaustedError(absl::StrFormat("'%s' is too large to map", path));
  }
  std::shared_ptr<MappedFile> file(new MappedFile());
  file->path_ = path;
  file->size_ = static_cast<size_t>(fd->size());
  file->mode_ = mode;
  static const uint8_t kEmpty[1] = {0};
  if (file->size_ == 0) {
    file->data_ = kEmpty;
    return std::shared_ptr<const MappedFile>(std::move(file));
  }
  if (mode == LoadMode::kMmap) {
    void* p = mmap(nullptr, file->size_, PROT_READ, MAP_PRIVATE, fd->fd(), 0);
    if (p == MAP_FAILED) return ErrnoError(errno, "mmap", path);
    file->mapping_ = p;
    file->mapping_size_ = file->size_;
    file->data_ = static_cast<const uint8_t*>(p);
    // Advisory only: weights are read in full for every token.
    (void)madvise(p, file->size_, MADV_WILLNEED);
  } else {
    const size_t padded = (file->size_ + 63) / 64 * 64;
    file->buffer_ = std::aligned_alloc(64, padded);
    if (file->buffer_ == nullptr) {
      return absl::ResourceExhaustedError(
          absl::StrFormat("cannot allocate %d bytes to read '%s'", file->size_, path));
    }
    absl::Status s = fd->ReadAt(0, file->size_, file->buffer_);
    if (!s.ok()) return s;
    file->data_ = static_cast<const uint8_t*>(file->buffer_);
  }
  return std::shared_ptr<const MappedFile>(std::move(file));
}

absl::StatusOr<std::string> ReadFileToString(const std::string& path, uint64_t max_bytes) {
  absl::StatusOr<RegularFile> file = RegularFile::Open(path, max_bytes);
  if (!file.ok()) return file.status();
  std::string out(static_cast<size_t>(file->size()), '\0');
  absl::Status s = file->ReadAt(0, out.size(), out.data());
  if (!s.ok()) return s;
  return out;
}

}  // namespace oxinfer
