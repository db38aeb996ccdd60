// The buffer entries of the dispatcher: virtual buffers and their replicas.
#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/dispatch/dispatcher.h"
#include "oxinfer/sdk/status.hpp"

namespace oxinfer {
namespace dispatch {

absl::StatusOr<VirtualBuffer*> Dispatcher::Lookup(const oxi_buffer* handle, uint64_t offset,
                                                  uint64_t size, const char* what) const {
  VirtualBuffer* vb = buffers_.Find(handle);
  if (vb == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        name_, ": ", what, ": not a buffer of this backend (never allocated here, or freed)"));
  }
  if (offset > vb->size || size > vb->size - offset) {
    return absl::OutOfRangeError(absl::StrCat(name_, ": ", what, ": bytes [", offset, ", ",
                                              offset + size, ") outside the buffer of ", vb->size,
                                              " bytes"));
  }
  return vb;
}

Endpoint Dispatcher::At(VirtualBuffer* vb, Side side, uint64_t offset) const {
  return Endpoint{side, vb->on[side].real, vb->on[side].host, offset};
}

absl::Status Dispatcher::EnsureReal(VirtualBuffer* vb, Side side) {
  Replica& r = vb->on[side];
  if (r.real != nullptr) return absl::OkStatus();
  OXI_ASSIGN_OR_RETURN(r.real, devices_[side].Alloc(vb->size, vb->flags));
  r.host = devices_[side].HostPtr(r.real);
  return absl::OkStatus();
}

void Dispatcher::FreeReplicas(VirtualBuffer* vb) {
  // The accelerator's replica may wrap the CPU's memory: it goes first.
  for (Side side : {kAccel, kCpu}) {
    devices_[side].Free(vb->on[side].real);
    vb->on[side].real = nullptr;
  }
}

absl::Status Dispatcher::Fetch(VirtualBuffer* vb, Side side, uint64_t begin, uint64_t end) {
  Replica& to = vb->on[side];
  const Side from = Other(side);
  gaps_.clear();
  to.valid.Gaps(begin, end, &gaps_);
  for (const ByteRange& gap : gaps_) {
    pieces_.clear();
    vb->on[from].valid.Intersect(gap.begin, gap.end, &pieces_);
    for (const ByteRange& p : pieces_) {
      OXI_RETURN_IF_ERROR(
          transfers_.Copy(At(vb, from, p.begin), At(vb, side, p.begin), p.size(), true));
      to.valid.Add(p.begin, p.end);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<oxi_buffer*> Dispatcher::Alloc(uint64_t size, uint32_t flags) {
  auto vb = std::make_unique<VirtualBuffer>();
  vb->size = size;
  vb->flags = flags;
  if (shared_) {
    // The accelerator wraps the CPU's memory: one set of bytes for both.
    OXI_RETURN_IF_ERROR(EnsureReal(vb.get(), kCpu));
    Replica& cpu = vb->on[kCpu];
    absl::StatusOr<oxi_buffer*> wrapped =
        cpu.host != nullptr ? devices_[kAccel].Wrap(cpu.host, size == 0 ? 64 : size, flags)
                            : absl::InternalError(absl::StrCat(
                                  devices_[kCpu].name(), ": a host-memory buffer without bytes"));
    if (!wrapped.ok()) {
      FreeReplicas(vb.get());
      return wrapped.status();
    }
    vb->on[kAccel].real = *wrapped;
    vb->on[kAccel].host = cpu.host;
  }
  return buffers_.Add(std::move(vb));
}

absl::StatusOr<oxi_buffer*> Dispatcher::Wrap(const void* host, uint64_t size, uint32_t flags) {
  if (!devices_[kCpu].can_wrap()) {
    return absl::UnimplementedError(
        absl::StrCat(name_, ": ", devices_[kCpu].name(), " cannot use host memory in place"));
  }
  auto vb = std::make_unique<VirtualBuffer>();
  vb->size = size;
  vb->flags = flags;
  vb->wrapped = true;
  Replica& cpu = vb->on[kCpu];
  OXI_ASSIGN_OR_RETURN(cpu.real, devices_[kCpu].Wrap(host, size, flags));
  cpu.host = devices_[kCpu].HostPtr(cpu.real);
  cpu.valid.Add(0, size);
  if (shared_) {
    absl::StatusOr<oxi_buffer*> wrapped = devices_[kAccel].Wrap(host, size, flags);
    if (!wrapped.ok()) {
      FreeReplicas(vb.get());
      return wrapped.status();
    }
    vb->on[kAccel].real = *wrapped;
    vb->on[kAccel].host = static_cast<uint8_t*>(const_cast<void*>(host));
  }
  return buffers_.Add(std::move(vb));
}

void Dispatcher::Free(oxi_buffer* buffer) {
  std::unique_ptr<VirtualBuffer> vb = buffers_.Remove(buffer);
  if (vb != nullptr) FreeReplicas(vb.get());
}

void* Dispatcher::HostPtr(oxi_buffer* buffer) {
  // Only shared replicas are host memory that always holds the data.
  VirtualBuffer* vb = shared_ ? buffers_.Find(buffer) : nullptr;
  return vb != nullptr ? vb->on[kCpu].host : nullptr;
}

absl::Status Dispatcher::WriteWhereItLives(VirtualBuffer* vb, uint64_t offset, const void* src,
                                           uint64_t size) {
  Side side = vb->on[kAccel].real == nullptr && vb->on[kCpu].real != nullptr ? kCpu : kAccel;
  absl::Status s = EnsureReal(vb, side);
  if (s.code() == absl::StatusCode::kResourceExhausted && side == kAccel) {
    side = kCpu;  // the accelerator's memory is full: the data stays on the CPU
    s = EnsureReal(vb, side);
  }
  OXI_RETURN_IF_ERROR(s);
  OXI_RETURN_IF_ERROR(devices_[side].Write(vb->on[side].real, offset, src, size));
  vb->on[side].valid.Add(offset, offset + size);
  vb->on[Other(side)].valid.Remove(offset, offset + size);
  return absl::OkStatus();
}

absl::Status Dispatcher::Write(oxi_buffer* dst, uint64_t offset, const void* src, uint64_t size) {
  OXI_ASSIGN_OR_RETURN(VirtualBuffer * vb, Lookup(dst, offset, size, "buffer_write"));
  if (size == 0) return absl::OkStatus();
  if (shared_) {
    OXI_RETURN_IF_ERROR(Touch(kCpu));
    return devices_[kCpu].Write(vb->on[kCpu].real, offset, src, size);
  }
  return WriteWhereItLives(vb, offset, src, size);
}

absl::Status Dispatcher::ReadValid(VirtualBuffer* vb, uint64_t offset, uint8_t* dst,
                                   uint64_t size) {
  const uint64_t end = offset + size;
  Replica& cpu = vb->on[kCpu];
  Replica& accel = vb->on[kAccel];
  pieces_.clear();
  cpu.valid.Intersect(offset, end, &pieces_);
  for (const ByteRange& p : pieces_) {
    OXI_RETURN_IF_ERROR(devices_[kCpu].Read(cpu.real, p.begin, dst + (p.begin - offset), p.size()));
  }
  gaps_.clear();
  cpu.valid.Gaps(offset, end, &gaps_);
  for (const ByteRange& gap : gaps_) {
    std::memset(dst + (gap.begin - offset), 0, gap.size());  // bytes never written
    pieces_.clear();
    accel.valid.Intersect(gap.begin, gap.end, &pieces_);
    for (const ByteRange& p : pieces_) {
      OXI_RETURN_IF_ERROR(
          devices_[kAccel].Read(accel.real, p.begin, dst + (p.begin - offset), p.size()));
    }
  }
  return absl::OkStatus();
}

absl::Status Dispatcher::Read(oxi_buffer* src, uint64_t offset, void* dst, uint64_t size) {
  OXI_ASSIGN_OR_RETURN(VirtualBuffer * vb, Lookup(src, offset, size, "buffer_read"));
  if (size == 0) return absl::OkStatus();
  if (shared_) {
    OXI_RETURN_IF_ERROR(Touch(kCpu));
    return devices_[kCpu].Read(vb->on[kCpu].real, offset, dst, size);
  }
  return ReadValid(vb, offset, static_cast<uint8_t*>(dst), size);
}

absl::Status Dispatcher::Copy(oxi_buffer* dst, uint64_t dst_offset, oxi_buffer* src,
                              uint64_t src_offset, uint64_t size) {
  OXI_ASSIGN_OR_RETURN(VirtualBuffer * d,
                       Lookup(dst, dst_offset, size, "buffer_copy (destination)"));
  OXI_ASSIGN_OR_RETURN(VirtualBuffer * s, Lookup(src, src_offset, size, "buffer_copy (source)"));
  if (size == 0) return absl::OkStatus();
  if (shared_) {
    OXI_RETURN_IF_ERROR(Touch(kCpu));
    return devices_[kCpu].Copy(d->on[kCpu].real, dst_offset, s->on[kCpu].real, src_offset, size);
  }
  const uint64_t src_end = src_offset + size, dst_end = dst_offset + size;
  bool valid[kSides], copy_on[kSides];
  for (Side side : {kAccel, kCpu}) {
    valid[side] = s->on[side].valid.Covers(src_offset, src_end);
    copy_on[side] = valid[side] && d->on[side].real != nullptr;
  }
  if (valid[kAccel] || valid[kCpu]) {
    // On the backend(s) where the source is valid; on one at least.
    if (!copy_on[kAccel] && !copy_on[kCpu]) copy_on[valid[kAccel] ? kAccel : kCpu] = true;
    for (Side side : {kAccel, kCpu}) {
      if (!copy_on[side]) continue;
      OXI_RETURN_IF_ERROR(EnsureReal(d, side));
      OXI_RETURN_IF_ERROR(
          devices_[side].Copy(d->on[side].real, dst_offset, s->on[side].real, src_offset, size));
    }
    for (Side side : {kAccel, kCpu}) {
      if (copy_on[side]) {
        d->on[side].valid.Add(dst_offset, dst_end);
      } else {
        d->on[side].valid.Remove(dst_offset, dst_end);
      }
    }
    return absl::OkStatus();
  }
  // The source is split between the backends: through the host.
  const bool overlap = d == s && src_offset < dst_end && dst_offset < src_end;
  return CopyThroughHost(
      size, overlap,
      [&](uint64_t done, uint8_t* p, uint64_t n) { return ReadValid(s, src_offset + done, p, n); },
      [&](uint64_t done, const uint8_t* p, uint64_t n) {
        return WriteWhereItLives(d, dst_offset + done, p, n);
      });
}

}  // namespace dispatch
}  // namespace oxinfer
