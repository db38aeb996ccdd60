#include "core/backend_dispatch.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/dispatch/device.h"
#include "core/dispatch/dispatcher.h"
#include "core/dispatch/profiled_backend.h"
#include "oxinfer/sdk/common.hpp"

namespace oxinfer {
namespace {

using dispatch::Dispatcher;

Dispatcher* D(void* self) { return static_cast<Dispatcher*>(self); }

int32_t ToOxi(const absl::Status& status, char* error, size_t error_size) {
  if (status.ok()) return OXI_OK;
  sdk::WriteMessage(error, error_size, std::string(status.message()));
  return static_cast<int32_t>(status.code());
}

// ---- the composed table's entries: the dispatcher's, with C errors ----
int32_t Alloc(void* self, uint64_t size, uint32_t flags, oxi_buffer** out, char* error,
              size_t error_size) {
  if (out == nullptr)
    return ToOxi(absl::InvalidArgumentError("buffer_alloc: out is NULL"), error, error_size);
  absl::StatusOr<oxi_buffer*> b = D(self)->Alloc(size, flags);
  *out = b.ok() ? *b : nullptr;
  return ToOxi(b.status(), error, error_size);
}
int32_t Wrap(void* self, const void* host, uint64_t size, uint32_t flags, oxi_buffer** out,
             char* error, size_t error_size) {
  if (out == nullptr)
    return ToOxi(absl::InvalidArgumentError("buffer_wrap: out is NULL"), error, error_size);
  absl::StatusOr<oxi_buffer*> b = D(self)->Wrap(host, size, flags);
  *out = b.ok() ? *b : nullptr;
  return ToOxi(b.status(), error, error_size);
}
void Free(void* self, oxi_buffer* buffer) { D(self)->Free(buffer); }
void* HostPtr(void* self, oxi_buffer* buffer) { return D(self)->HostPtr(buffer); }
int32_t Write(void* self, oxi_buffer* dst, uint64_t offset, const void* src, uint64_t size,
              char* error, size_t error_size) {
  return ToOxi(D(self)->Write(dst, offset, src, size), error, error_size);
}
int32_t Read(void* self, oxi_buffer* src, uint64_t offset, void* dst, uint64_t size, char* error,
             size_t error_size) {
  return ToOxi(D(self)->Read(src, offset, dst, size), error, error_size);
}
int32_t Copy(void* self, oxi_buffer* dst, uint64_t dst_offset, oxi_buffer* src, uint64_t src_offset,
             uint64_t size, char* error, size_t error_size) {
  return ToOxi(D(self)->Copy(dst, dst_offset, src, src_offset, size), error, error_size);
}
int32_t Supports(void* self, const oxi_op* op) {
  return op != nullptr && D(self)->Supports(op) ? 1 : 0;
}
int32_t Execute(void* self, const oxi_op* const* ops, int64_t n, char* error, size_t error_size) {
  return ToOxi(D(self)->Execute(ops, n), error, error_size);
}
int32_t Synchronize(void* self, char* error, size_t error_size) {
  return ToOxi(D(self)->Synchronize(), error, error_size);
}
oxi_dtype Preferred(void* self, oxi_dtype dtype, int64_t rows, int64_t cols) {
  return D(self)->PreferredWeightDtype(dtype, rows, cols);
}
int32_t Info(void* self, oxi_device_info* info) {
  return D(self)->device(dispatch::kAccel).DeviceInfo(info);
}

}  // namespace

bool BackendCheckFromEnvironment() {
  const char* v = std::getenv("OXINFER_BACKEND_CHECK");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

absl::StatusOr<std::unique_ptr<ComposedBackend>> ComposedBackend::Create(
    const oxi_backend_iface* accelerator, const oxi_backend_iface* cpu,
    const DispatchOptions& options) {
  OXI_RETURN_IF_ERROR(dispatch::Device::Validate(cpu, "cpu"));
  if (accelerator == cpu) accelerator = nullptr;
  if (accelerator != nullptr) {
    OXI_RETURN_IF_ERROR(dispatch::Device::Validate(accelerator, "accelerator"));
  }
  std::unique_ptr<ComposedBackend> c(new ComposedBackend());
  c->cpu_ = cpu;
  if (accelerator != nullptr) {
    c->dispatcher_ = std::make_unique<Dispatcher>(accelerator, cpu, options.profile, options.check);
    c->BuildTable();
  } else if (options.profile) {
    c->profiled_ = std::make_unique<dispatch::ProfiledBackend>(cpu);
  }
  return c;
}

void ComposedBackend::BuildTable() {
  const Dispatcher& d = *dispatcher_;
  name_ = d.name();
  std::memset(&table_, 0, sizeof table_);
  table_.struct_size = sizeof table_;
  table_.self = dispatcher_.get();
  table_.device_name = name_.c_str();
  table_.device_kind = d.device(dispatch::kAccel).iface()->device_kind;
  table_.flags = OXI_BACKEND_COMPLETE | (d.shared() ? OXI_BACKEND_HOST_MEMORY : 0u);
  table_.buffer_alloc = &Alloc;
  table_.buffer_wrap = d.device(dispatch::kCpu).can_wrap() ? &Wrap : nullptr;
  table_.buffer_free = &Free;
  table_.buffer_host_ptr = &HostPtr;
  table_.buffer_write = &Write;
  table_.buffer_read = &Read;
  table_.buffer_copy = &Copy;
  table_.supports = &Supports;
  table_.execute = &Execute;
  table_.synchronize = &Synchronize;
  table_.preferred_weight_dtype = &Preferred;
  table_.device_info = &Info;
}

ComposedBackend::~ComposedBackend() {
  const std::string report = CheckReport();
  if (!report.empty()) std::fputs(report.c_str(), stderr);
}

const oxi_backend_iface* ComposedBackend::iface() const {
  if (dispatcher_ != nullptr) return &table_;
  if (profiled_ != nullptr) return profiled_->iface();
  return cpu_;
}

const dispatch::Profile* ComposedBackend::profile() const {
  if (dispatcher_ != nullptr) return dispatcher_->profile();
  return profiled_ != nullptr ? profiled_->profile() : nullptr;
}

const dispatch::CheckLog* ComposedBackend::check_log() const {
  return dispatcher_ != nullptr ? dispatcher_->check_log() : nullptr;
}

std::string ComposedBackend::ProfileReport() const {
  const dispatch::Profile* p = profile();
  return p != nullptr ? p->Report() : "";
}

void ComposedBackend::ResetProfile() {
  dispatch::Profile* p = dispatcher_ != nullptr ? dispatcher_->profile()
                         : profiled_ != nullptr ? profiled_->profile()
                                                : nullptr;
  if (p != nullptr) p->Reset();
}

std::string ComposedBackend::CheckReport() const {
  const dispatch::CheckLog* log = check_log();
  if (log == nullptr) return "";
  return log->Report(dispatcher_->device(dispatch::kAccel).name(),
                     dispatcher_->device(dispatch::kCpu).name());
}

}  // namespace oxinfer
