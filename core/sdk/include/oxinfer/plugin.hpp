// oxinfer plugin SDK: a header-only C++ layer over plugin_abi.h.
//
// For plugin authors: write ordinary C++ (exceptions allowed inside), expose
// it through the C tables with the helpers below, and export the descriptor
// with OXINFER_DEFINE_PLUGIN. Needs only the C++17 standard library, so a
// third-party plugin builds against these headers alone.
#ifndef OXINFER_PLUGIN_HPP_
#define OXINFER_PLUGIN_HPP_

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <type_traits>
#include <utility>

#include "oxinfer/dtype.h"
#include "oxinfer/plugin_abi.h"

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

// Runs f (returning int32_t status) so that no exception escapes across the
// C boundary; an escaping exception becomes OXI_INTERNAL with its message.
template <typename F>
int32_t Guard(char* error, size_t error_size, F&& f) noexcept {
  try {
    return std::forward<F>(f)();
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

// Score helper for CPU-variant plugins: `score` when every bit of `required`
// is in the host's features, else 0 with a reason naming what is missing.
inline int32_t ScoreForCpuFeatures(const oxi_host_services* host, uint64_t required,
                                   const char* what, int32_t score, char* reason,
                                   size_t reason_size) {
  uint64_t have = (host != nullptr && OXI_HAS_FIELD(host, oxi_host_services, cpu_features) &&
                   host->cpu_features != nullptr)
                      ? host->cpu_features()
                      : 0;
  if ((have & required) != required) {
    WriteMessagef(reason, reason_size, "this CPU lacks %s", what);
    return 0;
  }
  return score;
}

// Logs through the host when it offers logging.
inline void Log(const oxi_host_services* host, int32_t level, const char* plugin,
                const std::string& message) {
  if (host != nullptr && OXI_HAS_FIELD(host, oxi_host_services, log) && host->log != nullptr) {
    host->log(level, plugin, message.c_str());
  }
}

// Calls fn(begin, end, thread) over [0, n) on the host's pool; serially when
// the host has none. fn is any callable; no allocation.
template <typename Fn>
void ParallelFor(const oxi_host_services* host, int64_t n, int64_t grain, Fn&& fn) {
  if (n <= 0) return;
  if (host == nullptr || !OXI_HAS_FIELD(host, oxi_host_services, parallel_for) ||
      host->parallel_for == nullptr) {
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

}  // namespace sdk
}  // namespace oxinfer

// Exports the plugin's single entry symbol, returning `descriptor` (a static
// oxi_plugin). Use once per shared object.
#define OXINFER_DEFINE_PLUGIN(descriptor)                                 \
  extern "C" OXI_EXPORT const oxi_plugin* oxinfer_plugin_entry(void) {   \
    return &(descriptor);                                                  \
  }

#endif  // OXINFER_PLUGIN_HPP_
