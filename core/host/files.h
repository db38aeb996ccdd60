// The host's file services (abi_common.h): read_file and free_blob.
#ifndef OXINFER_CORE_HOST_FILES_H_
#define OXINFER_CORE_HOST_FILES_H_

#include <cstddef>
#include <cstdint>

#include "oxinfer/abi_common.h"

namespace oxinfer {

// A whole regular file (symlinks followed) of at most max_bytes into *out:
// data NUL-terminated one byte past size, release with HostFreeBlob. Never
// blocks: FIFOs, devices and directories are refused before they are read.
// NOT_FOUND, INVALID_ARGUMENT, RESOURCE_EXHAUSTED (larger than max_bytes, or
// no memory) name the path and the reason (core/mapped_file.h RegularFile).
int32_t HostReadFile(const char* path, uint64_t max_bytes, oxi_blob* out, char* error,
                     size_t error_size);

// Frees out->data of a successful HostReadFile; NULL and empty blobs are fine.
void HostFreeBlob(oxi_blob* blob);

}  // namespace oxinfer

#endif  // OXINFER_CORE_HOST_FILES_H_
