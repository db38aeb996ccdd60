// Strict JSON parsing on top of nlohmann::json (Debian's nlohmann-json3):
// no exceptions escape, duplicate object keys and deep nesting are refused.
#ifndef OXINFER_CORE_JSON_UTIL_H_
#define OXINFER_CORE_JSON_UTIL_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace oxinfer {

inline constexpr int kMaxJsonDepth = 64;

// INVALID_ARGUMENT (with nlohmann's byte position) for malformed JSON, a
// duplicate key in any object (naming it), or nesting deeper than
// kMaxJsonDepth. The message does not name the file; callers prefix it.
absl::StatusOr<nlohmann::json> ParseJsonStrict(std::string_view text);

}  // namespace oxinfer

#endif  // OXINFER_CORE_JSON_UTIL_H_
