// The text between a family's call markers, parsed into a call. Anything
// that is not exactly a call of the format is an error: the stream parser
// then gives the text back as text.
#ifndef OXINFER_CORE_ENGINE_TOOL_CALL_BODY_H_
#define OXINFER_CORE_ENGINE_TOOL_CALL_BODY_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/chat/value.h"
#include "core/engine/tool_call.h"

namespace oxinfer::engine {

// The markers around one call of `format`; the quote marker is Gemma's
// string delimiter (markers inside a quoted string do not count), else "".
struct ToolCallMarkers {
  std::string open, close, quote;
};
ToolCallMarkers MarkersOf(ToolCallFormat format);

// `call:NAME{...}` of Gemma 4: values are <|"|>strings<|"|>, numbers, true,
// false, null, {key:value,...} and [value,...].
absl::StatusOr<ToolCall> ParseGemma4Call(absl::string_view body);

// `<function=NAME><parameter=KEY>VALUE</parameter>...</function>` of Qwen
// 3.5 / 3.8. A value is a string where the declaration (`tools`, the list the
// template saw) types the parameter as a string or does not type it, else
// JSON when it parses as such.
absl::StatusOr<ToolCall> ParseQwenXmlCall(absl::string_view body, const chat::Value& tools);

// `{"name": NAME, "arguments": {...}}` of Qwen 3 (arguments may also be a
// JSON string holding the object).
absl::StatusOr<ToolCall> ParseQwenJsonCall(absl::string_view body);

}  // namespace oxinfer::engine

#endif  // OXINFER_CORE_ENGINE_TOOL_CALL_BODY_H_
