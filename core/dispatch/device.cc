#include "core/dispatch/device.h"

#include <cstddef>

#include "absl/strings/str_cat.h"

namespace oxinfer {
namespace dispatch {
namespace {

constexpr size_t kErrorSize = 1024;

// The entry `field` of a table, or null when the table is too old to have it.
#define OXI_ENTRY(iface, field) \
  (OXI_HAS_FIELD((iface), oxi_backend_iface, field) ? (iface)->field : nullptr)

}  // namespace

absl::Status StatusFromOxi(int32_t code, absl::string_view message) {
  if (code == OXI_OK) return absl::OkStatus();
  const bool known = code > 0 && code <= static_cast<int32_t>(absl::StatusCode::kUnauthenticated);
  return absl::Status(known ? static_cast<absl::StatusCode>(code) : absl::StatusCode::kUnknown,
                      message.empty() ? "(no message)" : message);
}

Device::Device(const oxi_backend_iface* iface) : iface_(iface) {
  if (iface == nullptr) return;
  self_ = iface->self;
  name_ = iface->device_name != nullptr ? iface->device_name : "?";
  flags_ = iface->flags;
  alloc_ = OXI_ENTRY(iface, buffer_alloc);
  wrap_ = OXI_ENTRY(iface, buffer_wrap);
  free_ = OXI_ENTRY(iface, buffer_free);
  host_ptr_ = OXI_ENTRY(iface, buffer_host_ptr);
  write_ = OXI_ENTRY(iface, buffer_write);
  read_ = OXI_ENTRY(iface, buffer_read);
  copy_ = OXI_ENTRY(iface, buffer_copy);
  supports_ = OXI_ENTRY(iface, supports);
  execute_ = OXI_ENTRY(iface, execute);
  synchronize_ = OXI_ENTRY(iface, synchronize);
  preferred_ = OXI_ENTRY(iface, preferred_weight_dtype);
  device_info_ = OXI_ENTRY(iface, device_info);
}

absl::Status Device::Validate(const oxi_backend_iface* iface, absl::string_view role) {
  if (iface == nullptr) return absl::InvalidArgumentError(absl::StrCat("no ", role, " backend"));
  if (iface->struct_size < offsetof(oxi_backend_iface, execute) + sizeof(iface->execute)) {
    return absl::InvalidArgumentError(
        absl::StrCat(role, " backend: a table of ", iface->struct_size,
                     " bytes, too small for ABI 2 (", sizeof(oxi_backend_iface), ")"));
  }
  const std::string name = iface->device_name != nullptr ? iface->device_name : "?";
  struct Required {
    const char* field;
    bool present;
  } required[] = {
      {"buffer_alloc", iface->buffer_alloc != nullptr},
      {"buffer_free", iface->buffer_free != nullptr},
      {"buffer_write", iface->buffer_write != nullptr},
      {"buffer_read", iface->buffer_read != nullptr},
      {"execute", iface->execute != nullptr},
  };
  for (const Required& r : required) {
    if (!r.present) {
      return absl::InvalidArgumentError(
          absl::StrCat(role, " backend ", name, ": its table lacks ", r.field));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<oxi_buffer*> Device::Alloc(uint64_t size, uint32_t flags) {
  char error[kErrorSize];
  error[0] = '\0';
  oxi_buffer* out = nullptr;
  const int32_t rc = alloc_(self_, size == 0 ? 64 : size, flags, &out, error, sizeof error);
  if (rc == OXI_OK && out == nullptr) {
    return absl::InternalError(absl::StrCat(name_, ": buffer_alloc returned no buffer"));
  }
  if (rc != OXI_OK) {
    return StatusFromOxi(rc, absl::StrCat(name_, ": buffer_alloc of ", size, " bytes: ", error));
  }
  return out;
}

absl::StatusOr<oxi_buffer*> Device::Wrap(const void* host, uint64_t size, uint32_t flags) {
  if (wrap_ == nullptr) {
    return absl::UnimplementedError(absl::StrCat(name_, ": cannot use host memory in place"));
  }
  char error[kErrorSize];
  error[0] = '\0';
  oxi_buffer* out = nullptr;
  const int32_t rc = wrap_(self_, host, size, flags, &out, error, sizeof error);
  if (rc == OXI_OK && out == nullptr) {
    return absl::InternalError(absl::StrCat(name_, ": buffer_wrap returned no buffer"));
  }
  if (rc != OXI_OK) {
    return StatusFromOxi(rc, absl::StrCat(name_, ": buffer_wrap of ", size, " bytes: ", error));
  }
  return out;
}

void Device::Free(oxi_buffer* buffer) {
  if (buffer != nullptr) free_(self_, buffer);
}

uint8_t* Device::HostPtr(oxi_buffer* buffer) const {
  if (host_ptr_ == nullptr || buffer == nullptr) return nullptr;
  return static_cast<uint8_t*>(host_ptr_(self_, buffer));
}

absl::Status Device::Write(oxi_buffer* dst, uint64_t offset, const void* src, uint64_t size) {
  char error[kErrorSize];
  error[0] = '\0';
  const int32_t rc = write_(self_, dst, offset, src, size, error, sizeof error);
  MarkPending();
  if (rc == OXI_OK) return absl::OkStatus();
  return StatusFromOxi(rc, absl::StrCat(name_, ": buffer_write of bytes [", offset, ", ",
                                        offset + size, "): ", error));
}

absl::Status Device::Read(oxi_buffer* src, uint64_t offset, void* dst, uint64_t size) {
  char error[kErrorSize];
  error[0] = '\0';
  const int32_t rc = read_(self_, src, offset, dst, size, error, sizeof error);
  if (rc == OXI_OK) return absl::OkStatus();
  return StatusFromOxi(rc, absl::StrCat(name_, ": buffer_read of bytes [", offset, ", ",
                                        offset + size, "): ", error));
}

absl::Status Device::Copy(oxi_buffer* dst, uint64_t dst_offset, oxi_buffer* src,
                          uint64_t src_offset, uint64_t size) {
  if (copy_ == nullptr) {
    const bool overlap =
        dst == src && src_offset < dst_offset + size && dst_offset < src_offset + size;
    return CopyThroughHost(
        size, overlap,
        [&](uint64_t done, uint8_t* p, uint64_t n) { return Read(src, src_offset + done, p, n); },
        [&](uint64_t done, const uint8_t* p, uint64_t n) {
          return Write(dst, dst_offset + done, p, n);
        });
  }
  char error[kErrorSize];
  error[0] = '\0';
  const int32_t rc = copy_(self_, dst, dst_offset, src, src_offset, size, error, sizeof error);
  MarkPending();
  if (rc == OXI_OK) return absl::OkStatus();
  return StatusFromOxi(rc, absl::StrCat(name_, ": buffer_copy of ", size, " bytes: ", error));
}

absl::Status Device::Execute(const oxi_op* const* ops, int64_t n) {
  char error[kErrorSize];
  error[0] = '\0';
  const int32_t rc = execute_(self_, ops, n, error, sizeof error);
  MarkPending();
  if (rc == OXI_OK) return absl::OkStatus();
  return StatusFromOxi(rc, absl::StrCat(name_, ": ", error[0] ? error : "execute failed"));
}

absl::Status Device::Synchronize() {
  pending_ = false;
  if (synchronize_ == nullptr) return absl::OkStatus();
  char error[kErrorSize];
  error[0] = '\0';
  const int32_t rc = synchronize_(self_, error, sizeof error);
  if (rc == OXI_OK) return absl::OkStatus();
  return StatusFromOxi(rc, absl::StrCat(name_, ": synchronize: ", error));
}

oxi_dtype Device::PreferredWeightDtype(oxi_dtype dtype, int64_t rows, int64_t cols) const {
  return preferred_ != nullptr ? preferred_(self_, dtype, rows, cols) : dtype;
}

int32_t Device::DeviceInfo(oxi_device_info* info) const {
  return device_info_ != nullptr ? device_info_(self_, info) : OXI_UNIMPLEMENTED;
}

#undef OXI_ENTRY

}  // namespace dispatch
}  // namespace oxinfer
