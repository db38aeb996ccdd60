// The core's statuses at the plugin boundary: an absl::Status becomes the
// ABI's code plus its message in the caller's buffer, and no exception
// crosses.
#ifndef OXINFER_CORE_HOST_ABI_STATUS_H_
#define OXINFER_CORE_HOST_ABI_STATUS_H_

#include <cstddef>
#include <cstdint>
#include <exception>
#include <new>
#include <string>

#include "absl/status/status.h"
#include "oxinfer/sdk/common.hpp"

namespace oxinfer {

// The status code (absl's numbers are the ABI's); the message, NUL-terminated
// and truncated to fit, in error[0, error_size) when it is not OK.
inline int32_t ToAbiStatus(const absl::Status& status, char* error, size_t error_size) {
  if (!status.ok()) sdk::WriteMessage(error, error_size, std::string(status.message()));
  return static_cast<int32_t>(status.code());
}

// Runs a service body returning absl::Status; an escaping exception becomes
// RESOURCE_EXHAUSTED (out of memory) or INTERNAL, naming the service.
template <typename F>
int32_t ServeAbiCall(const char* service, char* error, size_t error_size, F&& body) noexcept {
  try {
    return ToAbiStatus(body(), error, error_size);
  } catch (const std::bad_alloc&) {
    return ToAbiStatus(absl::ResourceExhaustedError(std::string(service) + ": out of memory"),
                       error, error_size);
  } catch (const std::exception& e) {
    return ToAbiStatus(absl::InternalError(std::string(service) + ": " + e.what()), error,
                       error_size);
  } catch (...) {
    return ToAbiStatus(absl::InternalError(std::string(service) + ": unknown exception"), error,
                       error_size);
  }
}

// The other direction: what a plugin hands the host.

// A plugin's reason or error buffer as a string. The host terminates the
// buffer itself (its last byte), so one a plugin filled without a NUL is
// read within its size.
inline std::string PluginText(char* buffer, size_t size) {
  if (buffer == nullptr || size == 0) return "";
  buffer[size - 1] = '\0';
  return std::string(buffer);
}

// A status code a plugin returned, with `what` (naming the plugin and the
// call) and the plugin's message. The ABI's codes are absl's numbers; any
// other is UNKNOWN, with the number.
inline absl::Status StatusFromPlugin(int32_t code, const std::string& what,
                                     const std::string& message) {
  if (code == 0) return absl::OkStatus();
  const std::string text = what + ": " + (message.empty() ? "(no message)" : message);
  if (code > 0 && code <= static_cast<int32_t>(absl::StatusCode::kUnauthenticated)) {
    return absl::Status(static_cast<absl::StatusCode>(code), text);
  }
  return absl::UnknownError(text + " (status code " + std::to_string(code) +
                            ", not one of the ABI's)");
}

}  // namespace oxinfer

#endif  // OXINFER_CORE_HOST_ABI_STATUS_H_
