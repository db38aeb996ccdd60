// What the C API's opaque handles hold, and the helpers every entry point
// uses: statuses with thread-local messages, and no exception crossing out.
#ifndef OXINFER_CAPI_HANDLES_H_
#define OXINFER_CAPI_HANDLES_H_

#include <atomic>
#include <cstddef>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/status.h"
#include "core/engine/engine.h"
#include "core/engine/session.h"
#include "oxinfer/oxinfer.h"

struct oxinfer_engine {
  std::unique_ptr<oxinfer::engine::Engine> engine;
  std::atomic<int> sessions{0};
  std::string tool_format;  // for oxinfer_model_info
};

struct oxinfer_session {
  oxinfer_engine* owner = nullptr;
  std::unique_ptr<oxinfer::engine::Session> session;
  // Held by the call using the session; a second thread gets FAILED_PRECONDITION.
  std::mutex busy;
  oxinfer::engine::ChatOptions chat;  // the declared tools
};

namespace oxinfer::capi {

// Records the message for oxinfer_last_error and returns the code.
oxinfer_status Fail(const absl::Status& status);
oxinfer_status Fail(oxinfer_status code, const std::string& message);
oxinfer_status Ok();

// A copy the caller frees with oxinfer_string_free.
char* Dup(const std::string& s);

// The folder this library was loaded from ("" when it cannot be told).
std::string LibraryDir();

// Runs `body` (returning oxinfer_status), turning any exception into
// OXINFER_INTERNAL with its text.
template <typename F>
oxinfer_status Guard(F&& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    return Fail(OXINFER_INTERNAL, std::string("internal error: ") + e.what());
  } catch (...) {
    return Fail(OXINFER_INTERNAL, "internal error: unknown exception");
  }
}

}  // namespace oxinfer::capi

#endif  // OXINFER_CAPI_HANDLES_H_
