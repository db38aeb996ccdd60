// Python string formatting as templates use it: `fmt % args` (and the
// `format` filter) and str.format().
#ifndef OXINFER_CORE_CHAT_JINJA_FORMAT_H_
#define OXINFER_CORE_CHAT_JINJA_FORMAT_H_

#include <string>

#include "absl/status/statusor.h"
#include "core/chat/value.h"

namespace oxinfer::chat::jinja_internal {

// Python's % formatting (conversions s, r, d, i, f, e, g and %%, with flags,
// width and precision). `args` is a tuple, a dict (for %(key)s) or one value.
absl::StatusOr<std::string> PercentFormat(const std::string& fmt, const Value& args);

// Python str.format (subset: {}, {0}, {name}; no format specs).
absl::StatusOr<std::string> BraceFormat(const std::string& fmt, const CallArgs& a);

}  // namespace oxinfer::chat::jinja_internal

#endif  // OXINFER_CORE_CHAT_JINJA_FORMAT_H_
