// One backend of a composition, seen through absl::Status: every call's
// failure comes back with the backend's message prefixed by its name and the
// function ("arena: buffer_read: ..."). Optional entries are looked up once
// (OXI_HAS_FIELD and non-null), so an older or smaller table is safe.
#ifndef OXINFER_CORE_DISPATCH_DEVICE_H_
#define OXINFER_CORE_DISPATCH_DEVICE_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "oxinfer/backend_abi.h"

namespace oxinfer {
namespace dispatch {

// An absl::Status from an ABI status code and its message.
absl::Status StatusFromOxi(int32_t code, absl::string_view message);

// Copies `size` bytes through host memory: read(offset, dst, n) then
// write(offset, src, n) for each piece; in one piece when the source and
// destination overlap (as memmove would).
template <typename Read, typename Write>
absl::Status CopyThroughHost(uint64_t size, bool overlap, Read read, Write write) {
  const uint64_t piece = overlap ? size : std::min<uint64_t>(size, uint64_t{32} << 20);
  std::vector<uint8_t> staging(piece);
  for (uint64_t done = 0; done < size; done += piece) {
    const uint64_t n = std::min(piece, size - done);
    absl::Status s = read(done, staging.data(), n);
    if (s.ok()) s = write(done, staging.data(), n);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

class Device {
 public:
  Device() = default;
  // `iface` is borrowed; null: no backend on this side.
  explicit Device(const oxi_backend_iface* iface);

  // Whether a table can serve in a composition: the entries every backend
  // must have. `role` names it in the message ("accelerator", "cpu").
  static absl::Status Validate(const oxi_backend_iface* iface, absl::string_view role);

  bool present() const { return iface_ != nullptr; }
  const oxi_backend_iface* iface() const { return iface_; }
  const std::string& name() const { return name_; }
  bool complete() const { return (flags_ & OXI_BACKEND_COMPLETE) != 0; }
  // Buffers are host memory (the flag, and buffer_host_ptr present).
  bool host_memory() const { return (flags_ & OXI_BACKEND_HOST_MEMORY) != 0 && host_ptr_; }
  bool can_wrap() const { return wrap_ != nullptr; }
  bool has_synchronize() const { return synchronize_ != nullptr; }

  // Work was queued since the last Synchronize (only tracked for backends
  // that have synchronize: the others finish every call before returning).
  bool pending() const { return pending_; }

  absl::StatusOr<oxi_buffer*> Alloc(uint64_t size, uint32_t flags);
  absl::StatusOr<oxi_buffer*> Wrap(const void* host, uint64_t size, uint32_t flags);
  void Free(oxi_buffer* buffer);
  // The buffer's bytes, or null when not host-visible.
  uint8_t* HostPtr(oxi_buffer* buffer) const;
  absl::Status Write(oxi_buffer* dst, uint64_t offset, const void* src, uint64_t size);
  absl::Status Read(oxi_buffer* src, uint64_t offset, void* dst, uint64_t size);
  // buffer_copy; through host memory when the table has none.
  absl::Status Copy(oxi_buffer* dst, uint64_t dst_offset, oxi_buffer* src, uint64_t src_offset,
                    uint64_t size);
  // supports(op); a table without it supports everything when complete.
  bool Supports(const oxi_op* op) const {
    if (supports_ == nullptr) return complete();
    return supports_(self_, op) != 0;
  }
  absl::Status Execute(const oxi_op* const* ops, int64_t n);
  absl::Status Synchronize();
  // Synchronizes only when work is pending.
  absl::Status Settle() { return pending_ ? Synchronize() : absl::OkStatus(); }
  // preferred_weight_dtype, or `dtype` itself when absent.
  oxi_dtype PreferredWeightDtype(oxi_dtype dtype, int64_t rows, int64_t cols) const;
  // device_info; OXI_UNIMPLEMENTED when absent.
  int32_t DeviceInfo(oxi_device_info* info) const;

 private:
  void MarkPending() { pending_ = synchronize_ != nullptr; }

  const oxi_backend_iface* iface_ = nullptr;
  void* self_ = nullptr;
  std::string name_;
  uint32_t flags_ = 0;
  bool pending_ = false;
  decltype(oxi_backend_iface::buffer_alloc) alloc_ = nullptr;
  decltype(oxi_backend_iface::buffer_wrap) wrap_ = nullptr;
  decltype(oxi_backend_iface::buffer_free) free_ = nullptr;
  decltype(oxi_backend_iface::buffer_host_ptr) host_ptr_ = nullptr;
  decltype(oxi_backend_iface::buffer_write) write_ = nullptr;
  decltype(oxi_backend_iface::buffer_read) read_ = nullptr;
  decltype(oxi_backend_iface::buffer_copy) copy_ = nullptr;
  decltype(oxi_backend_iface::supports) supports_ = nullptr;
  decltype(oxi_backend_iface::execute) execute_ = nullptr;
  decltype(oxi_backend_iface::synchronize) synchronize_ = nullptr;
  decltype(oxi_backend_iface::preferred_weight_dtype) preferred_ = nullptr;
  decltype(oxi_backend_iface::device_info) device_info_ = nullptr;
};

}  // namespace dispatch
}  // namespace oxinfer

#endif  // OXINFER_CORE_DISPATCH_DEVICE_H_
