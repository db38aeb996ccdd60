// Errors of the Jinja interpreter. Every message that leaves it starts with
// "line N:": parse errors are made with LineError; runtime helpers return Err
// (no line) and the evaluator adds the line of the failing expression
// with AtLine.
#ifndef OXINFER_CORE_CHAT_JINJA_STATUS_H_
#define OXINFER_CORE_CHAT_JINJA_STATUS_H_

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"

namespace oxinfer::chat::jinja_internal {

inline absl::Status LineError(int line, absl::string_view msg) {
  return absl::InvalidArgumentError(absl::StrFormat("line %d: %s", line, msg));
}

inline absl::Status Err(absl::string_view msg) { return absl::InvalidArgumentError(msg); }

// Prefixes "line N: " unless the message already names a line.
inline absl::Status AtLine(absl::Status s, int line) {
  if (s.ok()) return s;
  if (absl::StartsWith(s.message(), "line ")) return s;
  return absl::Status(s.code(), absl::StrFormat("line %d: %s", line, s.message()));
}

}  // namespace oxinfer::chat::jinja_internal

#endif  // OXINFER_CORE_CHAT_JINJA_STATUS_H_
