#include "core/dispatch/profiled_backend.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "core/dispatch/op_info.h"
#include "oxinfer/sdk/common.hpp"

namespace oxinfer {
namespace dispatch {
namespace {

ProfiledBackend* Self(void* self) { return static_cast<ProfiledBackend*>(self); }

int64_t BytesTouched(const oxi_op* op) {
  if (op->struct_size < sizeof(oxi_op) + sizeof(oxi_tensor) * op->n_tensors) return 0;
  int64_t bytes = 0;
  for (int i = 0; i < op->n_tensors; ++i) {
    const oxi_tensor* t = oxi_op_tensor(op, i);
    if (t->buffer == nullptr) continue;
    absl::StatusOr<uint64_t> extent = OperandExtent(*t);
    if (extent.ok()) bytes += static_cast<int64_t>(*extent);
  }
  return bytes;
}

// The other entries forward to the CPU's with its own `self`.
const oxi_backend_iface* Cpu(void* self) { return Self(self)->cpu(); }

int32_t Alloc(void* self, uint64_t size, uint32_t flags, oxi_buffer** out, char* error,
              size_t error_size) {
  const oxi_backend_iface* c = Cpu(self);
  return c->buffer_alloc(c->self, size, flags, out, error, error_size);
}
int32_t Wrap(void* self, const void* host, uint64_t size, uint32_t flags, oxi_buffer** out,
             char* error, size_t error_size) {
  const oxi_backend_iface* c = Cpu(self);
  return c->buffer_wrap(c->self, host, size, flags, out, error, error_size);
}
void Free(void* self, oxi_buffer* buffer) {
  const oxi_backend_iface* c = Cpu(self);
  c->buffer_free(c->self, buffer);
}
void* HostPtr(void* self, oxi_buffer* buffer) {
  const oxi_backend_iface* c = Cpu(self);
  return c->buffer_host_ptr(c->self, buffer);
}
int32_t Write(void* self, oxi_buffer* dst, uint64_t offset, const void* src, uint64_t size,
              char* error, size_t error_size) {
  const oxi_backend_iface* c = Cpu(self);
  return c->buffer_write(c->self, dst, offset, src, size, error, error_size);
}
int32_t Read(void* self, oxi_buffer* src, uint64_t offset, void* dst, uint64_t size, char* error,
             size_t error_size) {
  const oxi_backend_iface* c = Cpu(self);
  return c->buffer_read(c->self, src, offset, dst, size, error, error_size);
}
int32_t Copy(void* self, oxi_buffer* dst, uint64_t dst_offset, oxi_buffer* src, uint64_t src_offset,
             uint64_t size, char* error, size_t error_size) {
  const oxi_backend_iface* c = Cpu(self);
  return c->buffer_copy(c->self, dst, dst_offset, src, src_offset, size, error, error_size);
}
int32_t Supports(void* self, const oxi_op* op) {
  const oxi_backend_iface* c = Cpu(self);
  return c->supports(c->self, op);
}
int32_t Synchronize(void* self, char* error, size_t error_size) {
  const oxi_backend_iface* c = Cpu(self);
  return c->synchronize(c->self, error, error_size);
}
oxi_dtype Preferred(void* self, oxi_dtype dtype, int64_t rows, int64_t cols) {
  const oxi_backend_iface* c = Cpu(self);
  return c->preferred_weight_dtype(c->self, dtype, rows, cols);
}
int32_t Info(void* self, oxi_device_info* info) {
  const oxi_backend_iface* c = Cpu(self);
  return c->device_info(c->self, info);
}

}  // namespace

ProfiledBackend::ProfiledBackend(const oxi_backend_iface* cpu)
    : cpu_(cpu),
      device_(cpu),
      profile_(ProfiledSide{}, ProfiledSide{device_.name(), device_.has_synchronize()}) {
  // The CPU's table (name, kind, flags, which optional entries exist), each
  // entry replaced by one that forwards to it.
  std::memset(&table_, 0, sizeof table_);
  std::memcpy(&table_, cpu, std::min<size_t>(cpu->struct_size, sizeof table_));
  table_.struct_size = sizeof table_;
  table_.self = this;
  auto keep = [](auto& entry, auto forward) { entry = entry != nullptr ? forward : nullptr; };
  keep(table_.buffer_alloc, &Alloc);
  keep(table_.buffer_wrap, &Wrap);
  keep(table_.buffer_free, &Free);
  keep(table_.buffer_host_ptr, &HostPtr);
  keep(table_.buffer_write, &Write);
  keep(table_.buffer_read, &Read);
  keep(table_.buffer_copy, &Copy);
  keep(table_.supports, &Supports);
  keep(table_.execute, &ProfiledBackend::Execute);
  keep(table_.synchronize, &Synchronize);
  keep(table_.preferred_weight_dtype, &Preferred);
  keep(table_.device_info, &Info);
}

int32_t ProfiledBackend::Execute(void* self, const oxi_op* const* ops, int64_t n, char* error,
                                 size_t error_size) {
  ProfiledBackend* p = Self(self);
  for (int64_t i = 0; i < n; ++i) {
    if (ops == nullptr || ops[i] == nullptr) {
      sdk::WriteMessage(error, error_size, "execute: NULL op");
      return OXI_INVALID_ARGUMENT;
    }
    const auto start = std::chrono::steady_clock::now();
    int32_t rc = p->cpu_->execute(p->cpu_->self, &ops[i], 1, error, error_size);
    if (rc == OXI_OK && p->table_.synchronize != nullptr) {
      rc = p->cpu_->synchronize(p->cpu_->self, error, error_size);
    }
    const auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now() - start)
                           .count();
    p->profile_.RecordOp(ops[i]->kind, kCpu, nanos, BytesTouched(ops[i]));
    if (rc != OXI_OK) return rc;
  }
  return OXI_OK;
}

}  // namespace dispatch
}  // namespace oxinfer
