// The CPU backend's buffers: host memory, allocated here or wrapped in place
// (a mapped checkpoint), behind a handle that carries a magic value so that
// a foreign or freed handle is refused with a message rather than followed.
#ifndef OXINFER_PLUGINS_BACKENDS_CPU_BUFFER_H_
#define OXINFER_PLUGINS_BACKENDS_CPU_BUFFER_H_

#include <cstdint>

#include "oxinfer/backend_abi.h"
#include "oxinfer/ops.h"

#ifndef OXI_CPU_NS
#error "OXI_CPU_NS must name the variant (scalar, avx2, avx512, neon)"
#endif

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {

#define OXI_CPU_STR2(x) #x
#define OXI_CPU_STR(x) OXI_CPU_STR2(x)

// FNV-1a of the variant's name: each variant refuses the others' handles.
constexpr uint64_t VariantHash(const char* s, uint64_t h = 0xcbf29ce484222325ull) {
  return *s == 0 ? h : VariantHash(s + 1, (h ^ static_cast<uint8_t>(*s)) * 0x100000001b3ull);
}
constexpr uint64_t kLiveBuffer = 0x6f78692d63707542ull ^ VariantHash(OXI_CPU_STR(OXI_CPU_NS));
constexpr uint64_t kFreedBuffer = kLiveBuffer ^ 0x6465657266ull;  // "freed"

struct HostBuffer {
  uint64_t magic = kLiveBuffer;
  uint8_t* data = nullptr;
  uint64_t size = 0;
  void (*release)(void*) = nullptr;  // frees data; NULL for wrapped memory
  HostBuffer* next_free = nullptr;   // in the pool of freed handles
};

// The buffer behind a handle, or NULL when the handle is not a live buffer
// of this backend (as far as can be told without a registry).
inline HostBuffer* AsHostBuffer(oxi_buffer* handle) {
  auto* b = reinterpret_cast<HostBuffer*>(handle);
  if (b == nullptr || reinterpret_cast<uintptr_t>(b) % alignof(HostBuffer) != 0) return nullptr;
  return b->magic == kLiveBuffer ? b : nullptr;
}

// What a handle that is not a live buffer is, for messages: "freed" while
// its handle is still in the pool of freed handles (buffers.cc keeps freed
// handles readable until a new buffer reuses them), else "foreign".
inline const char* DeadHandleKind(oxi_buffer* handle) {
  auto* b = reinterpret_cast<HostBuffer*>(handle);
  if (b == nullptr) return "NULL";
  if (reinterpret_cast<uintptr_t>(b) % alignof(HostBuffer) != 0) return "foreign";
  return b->magic == kFreedBuffer ? "freed" : "foreign";
}

// The first byte of a validated tensor operand.
inline uint8_t* Data(const oxi_tensor& t) {
  return reinterpret_cast<HostBuffer*>(t.buffer)->data + t.offset;
}

// Row r of a validated tensor, as E.
template <typename E>
inline E* RowPtr(const oxi_tensor& t, int64_t r) {
  return reinterpret_cast<E*>(Data(t) + r * oxi_tensor_stride(&t));
}

// The row stride of a validated tensor in elements of its (plain) type.
inline int64_t Ld(const oxi_tensor& t) {
  return oxi_tensor_stride(&t) / oxi_dtype_block_bytes(static_cast<oxi_dtype>(t.dtype));
}

inline bool Present(const oxi_tensor& t) { return t.buffer != nullptr; }

inline bool SameView(const oxi_tensor& a, const oxi_tensor& b) {
  return a.buffer == b.buffer && a.offset == b.offset && a.dtype == b.dtype && a.rows == b.rows &&
         a.cols == b.cols && oxi_tensor_stride(&a) == oxi_tensor_stride(&b);
}

// Buffer functions of the table (buffers.cc).
int32_t BufferAlloc(void* self, uint64_t size, uint32_t flags, oxi_buffer** out, char* error,
                    size_t error_size);
int32_t BufferWrap(void* self, const void* host, uint64_t size, uint32_t flags, oxi_buffer** out,
                   char* error, size_t error_size);
void BufferFree(void* self, oxi_buffer* buffer);
void* BufferHostPtr(void* self, oxi_buffer* buffer);
int32_t BufferWrite(void* self, oxi_buffer* dst, uint64_t offset, const void* src, uint64_t size,
                    char* error, size_t error_size);
int32_t BufferRead(void* self, oxi_buffer* src, uint64_t offset, void* dst, uint64_t size,
                   char* error, size_t error_size);
int32_t BufferCopy(void* self, oxi_buffer* dst, uint64_t dst_offset, oxi_buffer* src,
                   uint64_t src_offset, uint64_t size, char* error, size_t error_size);

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_BACKENDS_CPU_BUFFER_H_
