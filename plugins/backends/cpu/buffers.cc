// Buffers of the CPU backend: 64-byte aligned host memory (the host's
// allocator when it offers one), or host memory used in place.
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>

#include "plugins/backends/cpu/buffer.h"
#include "plugins/backends/cpu/runtime.h"

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {
namespace {

// Larger than any memory: a size beyond this is refused before rounding.
constexpr uint64_t kMaxBytes = uint64_t{1} << 60;

void FreeAligned(void* p) { std::free(p); }

// Freed handles are kept (up to kPoolMax) and reused by later buffers, so
// that a stale handle still reads as freed rather than as random memory.
constexpr int kPoolMax = 4096;
std::mutex g_pool_mutex;  // constexpr constructor: constant-initialised
HostBuffer* g_pool = nullptr;
int g_pool_size = 0;

HostBuffer* NewHandle() {
  {
    std::lock_guard<std::mutex> lock(g_pool_mutex);
    if (g_pool != nullptr) {
      HostBuffer* b = g_pool;
      g_pool = b->next_free;
      --g_pool_size;
      *b = HostBuffer();
      return b;
    }
  }
  return new (std::nothrow) HostBuffer;
}

void ReleaseHandle(HostBuffer* b) {
  b->magic = kFreedBuffer;
  b->data = nullptr;
  b->size = 0;
  std::lock_guard<std::mutex> lock(g_pool_mutex);
  if (g_pool_size >= kPoolMax) {
    delete b;
    return;
  }
  b->next_free = g_pool;
  g_pool = b;
  ++g_pool_size;
}

int32_t CheckRange(const Report& r, oxi_buffer* handle, const char* which, uint64_t offset,
                   uint64_t size, HostBuffer** out) {
  HostBuffer* b = AsHostBuffer(handle);
  if (b == nullptr) {
    return r.Fail(OXI_INVALID_ARGUMENT, "%s buffer %p is %s, not a live buffer of this backend",
                  which, static_cast<void*>(handle), DeadHandleKind(handle));
  }
  if (offset > b->size || size > b->size - offset) {
    return r.Fail(OXI_OUT_OF_RANGE, "bytes [%llu, %llu) outside the %s buffer of %llu bytes",
                  static_cast<unsigned long long>(offset),
                  static_cast<unsigned long long>(offset + size), which,
                  static_cast<unsigned long long>(b->size));
  }
  *out = b;
  return OXI_OK;
}

}  // namespace

int32_t BufferAlloc(void*, uint64_t size, uint32_t flags, oxi_buffer** out, char* error,
                    size_t error_size) {
  const Report r{"buffer_alloc", error, error_size};
  if (out == nullptr) return r.Fail(OXI_INVALID_ARGUMENT, "no place for the handle (out is NULL)");
  *out = nullptr;
  if (size > kMaxBytes) {
    return r.Fail(OXI_RESOURCE_EXHAUSTED, "%llu bytes is more than any memory",
                  static_cast<unsigned long long>(size));
  }
  const uint64_t rounded = size == 0 ? 64 : (size + 63) / 64 * 64;
  void* p = nullptr;
  void (*release)(void*) = &FreeAligned;
  if (Host().aligned_alloc != nullptr) {
    p = Host().aligned_alloc(static_cast<size_t>(rounded));
    release = Host().aligned_free;
  } else {
    p = std::aligned_alloc(64, static_cast<size_t>(rounded));
  }
  if (p == nullptr) {
    return r.Fail(OXI_RESOURCE_EXHAUSTED, "allocating %llu bytes failed",
                  static_cast<unsigned long long>(size));
  }
  if (flags & OXI_BUFFER_ZERO) std::memset(p, 0, static_cast<size_t>(rounded));
  HostBuffer* b = NewHandle();
  if (b == nullptr) {
    release(p);
    return r.Fail(OXI_RESOURCE_EXHAUSTED, "out of memory for a buffer handle");
  }
  b->data = static_cast<uint8_t*>(p);
  b->size = size;
  b->release = release;
  *out = reinterpret_cast<oxi_buffer*>(b);
  return OXI_OK;
}

int32_t BufferWrap(void*, const void* host, uint64_t size, uint32_t, oxi_buffer** out, char* error,
                   size_t error_size) {
  const Report r{"buffer_wrap", error, error_size};
  if (out == nullptr) return r.Fail(OXI_INVALID_ARGUMENT, "no place for the handle (out is NULL)");
  *out = nullptr;
  if (host == nullptr && size > 0) {
    return r.Fail(OXI_INVALID_ARGUMENT, "NULL host memory of %llu bytes",
                  static_cast<unsigned long long>(size));
  }
  HostBuffer* b = NewHandle();
  if (b == nullptr) return r.Fail(OXI_RESOURCE_EXHAUSTED, "out of memory for a buffer handle");
  b->data = static_cast<uint8_t*>(const_cast<void*>(host));
  b->size = size;
  b->release = nullptr;
  *out = reinterpret_cast<oxi_buffer*>(b);
  return OXI_OK;
}

void BufferFree(void*, oxi_buffer* handle) {
  HostBuffer* b = AsHostBuffer(handle);
  if (b == nullptr) return;  // foreign or already freed: nothing to report to
  if (b->release != nullptr) b->release(b->data);
  ReleaseHandle(b);
}

void* BufferHostPtr(void*, oxi_buffer* handle) {
  HostBuffer* b = AsHostBuffer(handle);
  return b != nullptr ? b->data : nullptr;
}

int32_t BufferWrite(void*, oxi_buffer* dst, uint64_t offset, const void* src, uint64_t size,
                    char* error, size_t error_size) {
  const Report r{"buffer_write", error, error_size};
  HostBuffer* b = nullptr;
  OXI_CPU_TRY(CheckRange(r, dst, "destination", offset, size, &b));
  if (size == 0) return OXI_OK;
  if (src == nullptr) return r.Fail(OXI_INVALID_ARGUMENT, "NULL source");
  std::memcpy(b->data + offset, src, static_cast<size_t>(size));
  return OXI_OK;
}

int32_t BufferRead(void*, oxi_buffer* src, uint64_t offset, void* dst, uint64_t size, char* error,
                   size_t error_size) {
  const Report r{"buffer_read", error, error_size};
  HostBuffer* b = nullptr;
  OXI_CPU_TRY(CheckRange(r, src, "source", offset, size, &b));
  if (size == 0) return OXI_OK;
  if (dst == nullptr) return r.Fail(OXI_INVALID_ARGUMENT, "NULL destination");
  std::memcpy(dst, b->data + offset, static_cast<size_t>(size));
  return OXI_OK;
}

int32_t BufferCopy(void*, oxi_buffer* dst, uint64_t dst_offset, oxi_buffer* src,
                   uint64_t src_offset, uint64_t size, char* error, size_t error_size) {
  const Report r{"buffer_copy", error, error_size};
  HostBuffer *d = nullptr, *s = nullptr;
  OXI_CPU_TRY(CheckRange(r, dst, "destination", dst_offset, size, &d));
  OXI_CPU_TRY(CheckRange(r, src, "source", src_offset, size, &s));
  if (size > 0) std::memmove(d->data + dst_offset, s->data + src_offset, static_cast<size_t>(size));
  return OXI_OK;
}

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer
