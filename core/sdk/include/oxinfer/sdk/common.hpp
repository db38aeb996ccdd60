// oxinfer SDK: the plumbing every plugin shares: error messages across the C
// boundary, exception guards, the host-services table, logging, the thread
// pool, bounded file reading.
//
// Needs only the C++17 standard library. Not for translation units compiled
// with ISA flags (-mavx2 ...) whose code may run before score() accepted the
// CPU: these inline functions could be the copy the linker keeps.
#ifndef OXINFER_SDK_COMMON_HPP_
#define OXINFER_SDK_COMMON_HPP_

#include <sys/stat.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <type_traits>
#include <utility>

#include "oxinfer/abi_common.h"
#include "oxinfer/sdk/status.hpp"

namespace oxinfer {
namespace sdk {

// Copies msg into a caller-provided C buffer, always NUL-terminated.
inline void WriteMessage(char* buffer, size_t size, const std::string& msg) {
  if (buffer == nullptr || size == 0) return;
  size_t n = msg.size() < size - 1 ? msg.size() : size - 1;
  std::memcpy(buffer, msg.data(), n);
  buffer[n] = '\0';
}

inline void WriteMessagef(char* buffer, size_t size, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
inline void WriteMessagef(char* buffer, size_t size, const char* fmt, ...) {
  if (buffer == nullptr || size == 0) return;
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buffer, size, fmt, args);
  va_end(args);
}

// A Status as the ABI returns it: its code, and its message in the buffer.
inline int32_t ToOxi(const Status& status, char* error, size_t error_size) {
  if (!status.ok()) WriteMessage(error, error_size, status.message());
  return status.code();
}

// The C status of an ABI call as a Status, its message prefixed by `what`.
inline Status FromOxi(int32_t code, const char* error, const std::string& what) {
  if (code == OXI_OK) return OkStatus();
  return Status(code, what + ": " + (error != nullptr && error[0] ? error : "(no message)"));
}

// Runs f so that no exception escapes across the C boundary. f returns an
// int32_t status or a Status (whose message goes to `error`); an escaping
// exception becomes OXI_INTERNAL with its message.
template <typename F>
int32_t Guard(char* error, size_t error_size, F&& f) noexcept {
  try {
    using R = decltype(f());
    if constexpr (std::is_same<R, Status>::value) {
      return ToOxi(std::forward<F>(f)(), error, error_size);
    } else {
      return std::forward<F>(f)();
    }
  } catch (const std::bad_alloc&) {
    WriteMessage(error, error_size, "out of memory");
    return OXI_RESOURCE_EXHAUSTED;
  } catch (const std::exception& e) {
    WriteMessage(error, error_size, std::string("plugin exception: ") + e.what());
  } catch (...) {
    WriteMessage(error, error_size, "plugin exception of unknown type");
  }
  return OXI_INTERNAL;
}

template <typename F>
int32_t Guard(F&& f) noexcept {
  return Guard(nullptr, 0, std::forward<F>(f));
}

// The host-services table this plugin was given (the adapters set it in
// get_interface). One per plugin shared object.
inline const oxi_host_services*& HostSlot() {
  static const oxi_host_services* host = nullptr;
  return host;
}
inline const oxi_host_services* Host() { return HostSlot(); }

// True when the host's table is new enough to have `field` and fills it.
#define OXI_HOST_HAS(host, field) \
  ((host) != nullptr && OXI_HAS_FIELD((host), oxi_host_services, field) && (host)->field != nullptr)

// Score helper for CPU-variant plugins: `score` when every bit of `required`
// is in the host's features, else 0 with a reason naming what is missing.
inline int32_t ScoreForCpuFeatures(const oxi_host_services* host, uint64_t required,
                                   const char* what, int32_t score, char* reason,
                                   size_t reason_size) {
  uint64_t have = OXI_HOST_HAS(host, cpu_features) ? host->cpu_features() : 0;
  if ((have & required) != required) {
    WriteMessagef(reason, reason_size, "this CPU lacks %s", what);
    return 0;
  }
  return score;
}

// Logs through the host when it offers logging.
inline void Log(const oxi_host_services* host, int32_t level, const char* plugin,
                const std::string& message) {
  if (OXI_HOST_HAS(host, log)) host->log(level, plugin, message.c_str());
}

// Calls fn(begin, end, thread) over [0, n) on the host's pool; serially when
// the host has none. fn is any callable; no allocation.
template <typename Fn>
void ParallelFor(const oxi_host_services* host, int64_t n, int64_t grain, Fn&& fn) {
  if (n <= 0) return;
  if (!OXI_HOST_HAS(host, parallel_for)) {
    fn(int64_t{0}, n, int32_t{0});
    return;
  }
  using FnT = typename std::remove_reference<Fn>::type;
  host->parallel_for(
      n, grain,
      [](void* ctx, int64_t begin, int64_t end, int32_t thread) {
        (*static_cast<FnT*>(ctx))(begin, end, thread);
      },
      const_cast<void*>(static_cast<const void*>(&fn)));
}

// A whole regular file of at most max_bytes, read by the host.
inline StatusOr<std::string> ReadFile(const std::string& path,
                                      uint64_t max_bytes = uint64_t{64} << 20,
                                      const oxi_host_services* host = Host()) {
  if (!OXI_HOST_HAS(host, read_file) || !OXI_HOST_HAS(host, free_blob)) {
    return UnimplementedError("the host offers no read_file");
  }
  oxi_blob blob = {};
  blob.struct_size = sizeof blob;
  char error[1024] = {};
  const int32_t rc = host->read_file(path.c_str(), max_bytes, &blob, error, sizeof error);
  if (rc != OXI_OK) return Status(rc, error[0] ? error : path + ": cannot read");
  std::string text(blob.data, blob.size);
  host->free_blob(&blob);
  return text;
}

// Whether a regular file (after symlinks) exists at path; FIFOs and devices
// are not files (opening them could block).
inline bool FileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace sdk
}  // namespace oxinfer

#endif  // OXINFER_SDK_COMMON_HPP_
