// oxinfer SDK: BackendPlugin<T> writes a backend plugin's descriptor, its C
// table (oxi_backend_iface) and the error plumbing around a C++ class T:
//
//   struct MyBackend {
//     bool Supports(const oxi_op& op) const;     // which calls it takes
//     sdk::Status Execute(const oxi_op& op);      // one operation
//     // Optional:
//     static constexpr uint32_t kBackendFlags = OXI_BACKEND_COMPLETE;  // OXI_BACKEND_*
//     static int32_t Score(const oxi_host_services* host, std::string* reason);
//     sdk::Status Synchronize();
//     oxi_dtype PreferredWeightDtype(oxi_dtype dtype, int64_t rows, int64_t cols) const;
//     void DeviceInfo(oxi_device_info* info) const;
//     int32_t DeviceKind() const;       // the table's kind, when it depends on the device
//     sdk::Status ExecuteAll(const oxi_op* const* ops, int64_t n);  // a whole sequence at once
//     // ABI 2.1, several devices (vulkan:1):
//     int32_t DeviceCount() const;
//     bool DeviceInfoAt(int32_t index, oxi_device_info* info) const;
//     sdk::Status SelectDevice(int32_t index);
//     static constexpr int32_t kPrefillChunk = 512;  // tokens per prefill chunk (ABI 2.1)
//     // Own device memory (all of them, or none: then buffers are host memory
//     // the adapter manages, and sdk::HostData(tensor) gives an operand's bytes):
//     sdk::StatusOr<oxi_buffer*> Alloc(uint64_t size, uint32_t flags);
//     void Free(oxi_buffer* buffer);
//     sdk::Status Write(oxi_buffer* dst, uint64_t offset, const void* src, uint64_t size);
//     sdk::Status Read(oxi_buffer* src, uint64_t offset, void* dst, uint64_t size);
//     sdk::Status CopyBuffer(oxi_buffer* dst, uint64_t dst_offset, oxi_buffer* src,
//                            uint64_t src_offset, uint64_t size);
//   };
//   OXINFER_BACKEND_PLUGIN(MyBackend, "my-backend", "1.0.0", "what it is", OXI_DEVICE_GPU)
//
// Operations T does not support run on the CPU reference: the host asks
// Supports() per call and never sends an unsupported one.
#ifndef OXINFER_SDK_BACKEND_PLUGIN_HPP_
#define OXINFER_SDK_BACKEND_PLUGIN_HPP_

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "oxinfer/backend_abi.h"
#include "oxinfer/sdk/common.hpp"
#include "oxinfer/sdk/status.hpp"

namespace oxinfer {
namespace sdk {

// Host-memory buffers, for backends that compute on host memory.
struct HostBuffer {
  void* data = nullptr;
  uint64_t size = 0;
  bool owned = false;
};
inline HostBuffer* AsHostBuffer(oxi_buffer* b) { return reinterpret_cast<HostBuffer*>(b); }
// The first byte of a tensor operand in a host-memory buffer.
inline uint8_t* HostData(const oxi_tensor& t) {
  return static_cast<uint8_t*>(AsHostBuffer(t.buffer)->data) + t.offset;
}
// Row r of a tensor operand in a host-memory buffer, as T.
template <typename E>
inline E* HostRow(const oxi_tensor& t, int64_t r) {
  return reinterpret_cast<E*>(HostData(t) + r * oxi_tensor_stride(&t));
}

// Whether every present operand of op is F32.
inline bool AllF32(const oxi_op& op) {
  for (int i = 0; i < op.n_tensors; ++i) {
    const oxi_tensor* t = oxi_op_tensor(&op, i);
    if (t->buffer != nullptr && t->dtype != OXI_DTYPE_F32) return false;
  }
  return true;
}

namespace internal {

// T::kBackendFlags, or 0.
template <typename T, typename = void>
struct BackendFlags : std::integral_constant<uint32_t, 0> {};
template <typename T>
struct BackendFlags<T, std::void_t<decltype(T::kBackendFlags)>>
    : std::integral_constant<uint32_t, T::kBackendFlags> {};

template <typename T, typename = void>
struct HasScore : std::false_type {};
template <typename T>
struct HasScore<T, std::void_t<decltype(T::Score(std::declval<const oxi_host_services*>(),
                                                 std::declval<std::string*>()))>> : std::true_type {
};
template <typename T, typename = void>
struct HasAlloc : std::false_type {};
template <typename T>
struct HasAlloc<T, std::void_t<decltype(std::declval<T&>().Alloc(uint64_t{}, uint32_t{}))>>
    : std::true_type {};
template <typename T, typename = void>
struct HasSync : std::false_type {};
template <typename T>
struct HasSync<T, std::void_t<decltype(std::declval<T&>().Synchronize())>> : std::true_type {};
template <typename T, typename = void>
struct HasPreferred : std::false_type {};
template <typename T>
struct HasPreferred<T, std::void_t<decltype(std::declval<const T&>().PreferredWeightDtype(
                           OXI_DTYPE_F32, int64_t{}, int64_t{}))>> : std::true_type {};
template <typename T, typename = void>
struct HasDeviceInfo : std::false_type {};
template <typename T>
struct HasDeviceInfo<
    T, std::void_t<decltype(std::declval<const T&>().DeviceInfo(std::declval<oxi_device_info*>()))>>
    : std::true_type {};

template <typename T, typename = void>
struct HasDeviceKind : std::false_type {};
template <typename T>
struct HasDeviceKind<T, std::void_t<decltype(std::declval<const T&>().DeviceKind())>>
    : std::true_type {};
template <typename T, typename = void>
struct HasExecuteAll : std::false_type {};
template <typename T>
struct HasExecuteAll<T, std::void_t<decltype(std::declval<T&>().ExecuteAll(
                            std::declval<const oxi_op* const*>(), int64_t{}))>> : std::true_type {};
template <typename T, typename = void>
struct HasDevices : std::false_type {};
template <typename T>
struct HasDevices<T, std::void_t<decltype(std::declval<const T&>().DeviceCount()),
                                 decltype(std::declval<const T&>().DeviceInfoAt(
                                     int32_t{}, std::declval<oxi_device_info*>())),
                                 decltype(std::declval<T&>().SelectDevice(int32_t{}))>>
    : std::true_type {};

// T::kPrefillChunk, or 0 (the host's default).
template <typename T, typename = void>
struct PrefillChunk : std::integral_constant<int32_t, 0> {};
template <typename T>
struct PrefillChunk<T, std::void_t<decltype(T::kPrefillChunk)>>
    : std::integral_constant<int32_t, T::kPrefillChunk> {};

}  // namespace internal

template <typename T>
class BackendPlugin {
 public:
  static int32_t Score(const oxi_host_services* host, char* reason, size_t reason_size) {
    if constexpr (internal::HasScore<T>::value) {
      int32_t score = 0;
      Guard(reason, reason_size, [&]() -> int32_t {
        std::string why;
        score = T::Score(host, &why);
        if (score <= 0) WriteMessage(reason, reason_size, why.empty() ? "declined" : why);
        return OXI_OK;
      });
      return score > 0 ? score : 0;
    } else {
      (void)host, (void)reason, (void)reason_size;
      return 1;
    }
  }

  static const void* GetInterface(const oxi_host_services* host, const char* name,
                                  int32_t device_kind, char* error, size_t error_size) {
    HostSlot() = host;
    static oxi_backend_iface iface;
    static std::unique_ptr<T> impl;
    if (impl == nullptr) {
      const int32_t rc = Guard(error, error_size, [&]() -> int32_t {
        impl = std::make_unique<T>();
        return OXI_OK;
      });
      if (rc != OXI_OK) return nullptr;
      iface = MakeIface(impl.get(), name, device_kind);
    }
    return &iface;
  }

 private:
  static T* S(void* self) { return static_cast<T*>(self); }

  static oxi_backend_iface MakeIface(T* impl, const char* name, int32_t device_kind) {
    oxi_backend_iface t;
    std::memset(&t, 0, sizeof t);
    t.struct_size = sizeof t;
    t.self = impl;
    t.device_name = name;
    t.device_kind = device_kind;
    if constexpr (internal::HasDeviceKind<T>::value) t.device_kind = impl->DeviceKind();
    t.flags = internal::BackendFlags<T>::value;
    t.supports = &Supports;
    t.execute = &Execute;
    if constexpr (internal::HasAlloc<T>::value) {
      t.buffer_alloc = &Alloc;
      t.buffer_free = &Free;
      t.buffer_write = &Write;
      t.buffer_read = &Read;
      t.buffer_copy = &Copy;
    } else {
      t.flags |= OXI_BACKEND_HOST_MEMORY;
      t.buffer_alloc = &HostAlloc;
      t.buffer_wrap = &HostWrap;
      t.buffer_free = &HostFree;
      t.buffer_host_ptr = &HostPtr;
      t.buffer_write = &HostWrite;
      t.buffer_read = &HostRead;
      t.buffer_copy = &HostCopy;
    }
    if constexpr (internal::HasSync<T>::value) t.synchronize = &Sync;
    if constexpr (internal::HasPreferred<T>::value) t.preferred_weight_dtype = &Preferred;
    if constexpr (internal::HasDeviceInfo<T>::value) t.device_info = &Info;
    if constexpr (internal::HasDevices<T>::value) {
      t.device_count = &Count;
      t.device_info_at = &InfoAt;
      t.select_device = &Select;
    }
    t.prefill_chunk = internal::PrefillChunk<T>::value;
    return t;
  }

  static int32_t Supports(void* self, const oxi_op* op) {
    if (op == nullptr) return 0;
    bool yes = false;
    Guard([&]() -> int32_t {
      yes = S(self)->Supports(*op);
      return OXI_OK;
    });
    return yes ? 1 : 0;
  }
  static int32_t Execute(void* self, const oxi_op* const* ops, int64_t n, char* error,
                         size_t error_size) {
    return Guard(error, error_size, [&]() -> Status {
      for (int64_t i = 0; i < n; ++i) {
        if (ops[i] == nullptr) return InvalidArgumentError("execute: null op");
      }
      if constexpr (internal::HasExecuteAll<T>::value) {
        return S(self)->ExecuteAll(ops, n);
      } else {
        for (int64_t i = 0; i < n; ++i) OXI_RETURN_IF_ERROR(S(self)->Execute(*ops[i]));
        return OkStatus();
      }
    });
  }
  static int32_t Sync(void* self, char* error, size_t error_size) {
    return Guard(error, error_size, [&]() -> Status { return S(self)->Synchronize(); });
  }
  static oxi_dtype Preferred(void* self, oxi_dtype dtype, int64_t rows, int64_t cols) {
    return S(self)->PreferredWeightDtype(dtype, rows, cols);
  }
  static int32_t Info(void* self, oxi_device_info* info) {
    if (info == nullptr) return OXI_INVALID_ARGUMENT;
    S(self)->DeviceInfo(info);
    return OXI_OK;
  }

  static int32_t Count(void* self) {
    int32_t n = 0;
    Guard([&]() -> int32_t {
      n = S(self)->DeviceCount();
      return OXI_OK;
    });
    return n;
  }
  static int32_t InfoAt(void* self, int32_t index, oxi_device_info* info) {
    if (info == nullptr) return OXI_INVALID_ARGUMENT;
    bool ok = false;
    Guard([&]() -> int32_t {
      ok = S(self)->DeviceInfoAt(index, info);
      return OXI_OK;
    });
    return ok ? OXI_OK : OXI_OUT_OF_RANGE;
  }
  static int32_t Select(void* self, int32_t index, char* error, size_t error_size) {
    return Guard(error, error_size, [&]() { return S(self)->SelectDevice(index); });
  }

  // ---- T's own memory ----
  static int32_t Alloc(void* self, uint64_t size, uint32_t flags, oxi_buffer** out, char* error,
                       size_t error_size) {
    return Guard(error, error_size, [&]() -> Status {
      OXI_ASSIGN_OR_RETURN(*out, S(self)->Alloc(size, flags));
      return OkStatus();
    });
  }
  static void Free(void* self, oxi_buffer* b) {
    Guard([&]() -> int32_t {
      S(self)->Free(b);
      return OXI_OK;
    });
  }
  static int32_t Write(void* self, oxi_buffer* dst, uint64_t off, const void* src, uint64_t size,
                       char* error, size_t error_size) {
    return Guard(error, error_size, [&]() { return S(self)->Write(dst, off, src, size); });
  }
  static int32_t Read(void* self, oxi_buffer* src, uint64_t off, void* dst, uint64_t size,
                      char* error, size_t error_size) {
    return Guard(error, error_size, [&]() { return S(self)->Read(src, off, dst, size); });
  }
  static int32_t Copy(void* self, oxi_buffer* dst, uint64_t doff, oxi_buffer* src, uint64_t soff,
                      uint64_t size, char* error, size_t error_size) {
    return Guard(error, error_size,
                 [&]() { return S(self)->CopyBuffer(dst, doff, src, soff, size); });
  }

  // ---- host memory managed here ----
  static Status InRange(const HostBuffer* b, uint64_t off, uint64_t size, const char* what) {
    if (b == nullptr || off > b->size || size > b->size - off) {
      return OutOfRangeError(StrCat(what, ": bytes [", off, ", ", off + size,
                                    ") outside the buffer of ", b ? b->size : 0));
    }
    return OkStatus();
  }
  static int32_t HostAlloc(void*, uint64_t size, uint32_t flags, oxi_buffer** out, char* error,
                           size_t error_size) {
    return Guard(error, error_size, [&]() -> Status {
      const uint64_t rounded = (size + 63) / 64 * 64;
      void* p = std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
      if (p == nullptr) return ResourceExhaustedError(StrCat("allocating ", size, " bytes"));
      if (flags & OXI_BUFFER_ZERO) std::memset(p, 0, rounded);
      *out = reinterpret_cast<oxi_buffer*>(new HostBuffer{p, size, true});
      return OkStatus();
    });
  }
  static int32_t HostWrap(void*, const void* host, uint64_t size, uint32_t, oxi_buffer** out,
                          char* error, size_t error_size) {
    return Guard(error, error_size, [&]() -> Status {
      *out = reinterpret_cast<oxi_buffer*>(new HostBuffer{const_cast<void*>(host), size, false});
      return OkStatus();
    });
  }
  static void HostFree(void*, oxi_buffer* b) {
    HostBuffer* h = AsHostBuffer(b);
    if (h == nullptr) return;
    if (h->owned) std::free(h->data);
    delete h;
  }
  static void* HostPtr(void*, oxi_buffer* b) { return b ? AsHostBuffer(b)->data : nullptr; }
  static int32_t HostWrite(void*, oxi_buffer* dst, uint64_t off, const void* src, uint64_t size,
                           char* error, size_t error_size) {
    return Guard(error, error_size, [&]() -> Status {
      OXI_RETURN_IF_ERROR(InRange(AsHostBuffer(dst), off, size, "buffer_write"));
      std::memcpy(static_cast<uint8_t*>(AsHostBuffer(dst)->data) + off, src, size);
      return OkStatus();
    });
  }
  static int32_t HostRead(void*, oxi_buffer* src, uint64_t off, void* dst, uint64_t size,
                          char* error, size_t error_size) {
    return Guard(error, error_size, [&]() -> Status {
      OXI_RETURN_IF_ERROR(InRange(AsHostBuffer(src), off, size, "buffer_read"));
      std::memcpy(dst, static_cast<const uint8_t*>(AsHostBuffer(src)->data) + off, size);
      return OkStatus();
    });
  }
  static int32_t HostCopy(void*, oxi_buffer* dst, uint64_t doff, oxi_buffer* src, uint64_t soff,
                          uint64_t size, char* error, size_t error_size) {
    return Guard(error, error_size, [&]() -> Status {
      OXI_RETURN_IF_ERROR(InRange(AsHostBuffer(dst), doff, size, "buffer_copy"));
      OXI_RETURN_IF_ERROR(InRange(AsHostBuffer(src), soff, size, "buffer_copy"));
      std::memmove(static_cast<uint8_t*>(AsHostBuffer(dst)->data) + doff,
                   static_cast<const uint8_t*>(AsHostBuffer(src)->data) + soff, size);
      return OkStatus();
    });
  }
};

// The descriptor and the entry symbol of a backend plugin over class T.
#define OXINFER_BACKEND_PLUGIN(T, name, version, description, device_kind)                        \
  namespace {                                                                                     \
  int32_t OxiBackendScore_(const oxi_host_services* h, char* r, size_t n) {                       \
    return ::oxinfer::sdk::BackendPlugin<T>::Score(h, r, n);                                      \
  }                                                                                               \
  const void* OxiBackendIface_(const oxi_host_services* h, char* e, size_t n) {                   \
    return ::oxinfer::sdk::BackendPlugin<T>::GetInterface(h, name, device_kind, e, n);            \
  }                                                                                               \
  const oxi_plugin kOxiBackendPlugin_ = {                                                         \
      sizeof(oxi_plugin), OXI_ABI_MAJOR,     OXI_ABI_MINOR,    OXI_PLUGIN_BACKEND, name, version, \
      description,        &OxiBackendScore_, &OxiBackendIface_};                                  \
  }                                                                                               \
  extern "C" OXI_EXPORT const oxi_plugin* oxinfer_plugin_entry(void) { return &kOxiBackendPlugin_; }

}  // namespace sdk
}  // namespace oxinfer

#endif  // OXINFER_SDK_BACKEND_PLUGIN_HPP_
