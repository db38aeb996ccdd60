#include "core/host/files.h"

#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "core/host/abi_status.h"
#include "core/mapped_file.h"

namespace oxinfer {

int32_t HostReadFile(const char* path, uint64_t max_bytes, oxi_blob* out, char* error,
                     size_t error_size) {
  return ServeAbiCall("read_file", error, error_size, [&]() -> absl::Status {
    if (out == nullptr) return absl::InvalidArgumentError("read_file: out is NULL");
    out->data = nullptr;
    out->size = 0;
    if (path == nullptr || path[0] == '\0') {
      return absl::InvalidArgumentError("read_file: no path given");
    }
    absl::StatusOr<RegularFile> file = RegularFile::Open(path, max_bytes);
    if (!file.ok()) return file.status();
    const uint64_t size = file->size();
    char* data = size < SIZE_MAX ? static_cast<char*>(std::malloc(size + 1)) : nullptr;
    if (data == nullptr) {
      return absl::ResourceExhaustedError(
          absl::StrFormat("cannot read '%s': no memory for its %d bytes", path, size));
    }
    if (absl::Status s = file->ReadAt(0, size, data); !s.ok()) {
      std::free(data);
      return s;
    }
    data[size] = '\0';
    out->data = data;
    out->size = size;
    return absl::OkStatus();
  });
}

void HostFreeBlob(oxi_blob* blob) {
  if (blob == nullptr) return;
  std::free(blob->data);
  blob->data = nullptr;
  blob->size = 0;
}

}  // namespace oxinfer
