// Strict JSON parsing on top of nlohmann::json (Debian's nlohmann-json3), the
// one JSON reader of the core: the host's json_parse service, safetensors
// headers and indexes. No exception escapes. Refused, as INVALID_ARGUMENT
// "line:col: what" (1-based; the column counts bytes):
//   - malformed JSON, trailing bytes after the value, empty input, NUL bytes;
//   - a duplicate key in any object (naming it);
//   - nesting deeper than kMaxJsonDepth arrays and objects;
//   - invalid UTF-8 and unpaired \u surrogates in strings, bytes outside
//     strings that are not JSON (nlohmann's lexer checks both);
//   - numbers beyond a double's range (1e400).
// The message does not name the text; callers prefix it.
#ifndef OXINFER_CORE_JSON_UTIL_H_
#define OXINFER_CORE_JSON_UTIL_H_

#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/limits.h"
#include "nlohmann/json.hpp"

namespace oxinfer {

inline constexpr int kMaxJsonDepth = limits::kJsonDepth;

// A consumer of parse events: nlohmann's SAX interface. Its callbacks see
// only what passed the strict checks, in document order; they return true
// (false stops the parse: INVALID_ARGUMENT "line:col: parse stopped") and may
// throw std::bad_alloc (RESOURCE_EXHAUSTED). parse_error is never called.
using JsonEvents = nlohmann::json_sax<nlohmann::json>;

// Parses `text`, feeding `events`.
absl::Status ParseJsonStrict(std::string_view text, JsonEvents* events);

// Parses `text` into nlohmann's document.
absl::StatusOr<nlohmann::json> ParseJsonStrict(std::string_view text);

}  // namespace oxinfer

#endif  // OXINFER_CORE_JSON_UTIL_H_
