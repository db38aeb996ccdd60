// Statuses and messages, strings, versions, and where the library lives.
#include <dlfcn.h>

#include <climits>
#include <cstdlib>
#include <string>

#include "capi/handles.h"

namespace oxinfer::capi {
namespace {

thread_local std::string last_error;

}  // namespace

oxinfer_status Fail(const absl::Status& status) {
  if (status.ok()) return Ok();
  last_error = std::string(status.message());
  return static_cast<oxinfer_status>(status.code());
}

oxinfer_status Fail(oxinfer_status code, const std::string& message) {
  last_error = message;
  return code;
}

oxinfer_status Ok() { return OXINFER_OK; }

char* Dup(const std::string& s) {
  char* out = static_cast<char*>(std::malloc(s.size() + 1));
  if (out == nullptr) return nullptr;
  std::memcpy(out, s.data(), s.size());
  out[s.size()] = '\0';
  return out;
}

std::string LibraryDir() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&oxinfer_version), &info) == 0 || info.dli_fname == nullptr) {
    return "";
  }
  char real[PATH_MAX];
  if (realpath(info.dli_fname, real) == nullptr) return "";
  std::string path = real;
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

}  // namespace oxinfer::capi

extern "C" {

const char* oxinfer_version(void) { return "1.1.0"; }

uint32_t oxinfer_api_version(void) {
  return (uint32_t{OXINFER_API_VERSION_MAJOR} << 16) | OXINFER_API_VERSION_MINOR;
}

const char* oxinfer_last_error(void) { return oxinfer::capi::last_error.c_str(); }

const char* oxinfer_status_name(oxinfer_status status) {
  switch (status) {
    case OXINFER_OK:
      return "OK";
    case OXINFER_CANCELLED:
      return "CANCELLED";
    case OXINFER_UNKNOWN:
      return "UNKNOWN";
    case OXINFER_INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case OXINFER_DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case OXINFER_NOT_FOUND:
      return "NOT_FOUND";
    case OXINFER_ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case OXINFER_PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case OXINFER_RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case OXINFER_FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case OXINFER_ABORTED:
      return "ABORTED";
    case OXINFER_OUT_OF_RANGE:
      return "OUT_OF_RANGE";
    case OXINFER_UNIMPLEMENTED:
      return "UNIMPLEMENTED";
    case OXINFER_INTERNAL:
      return "INTERNAL";
    case OXINFER_UNAVAILABLE:
      return "UNAVAILABLE";
    case OXINFER_DATA_LOSS:
      return "DATA_LOSS";
  }
  return "UNKNOWN";
}

void oxinfer_string_free(char* s) { std::free(s); }

}  // extern "C"
