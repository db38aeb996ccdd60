// Tool calls: what a model asks a host to run, in the format its family was
// trained on, and which format a checkpoint speaks (read from its template).
//
//   Gemma 4:   <|tool_call>call:NAME{key:<|"|>text<|"|>,n:3}<tool_call|>
//   Qwen 3.5+: <tool_call>\n<function=NAME>\n<parameter=key>\ntext\n</parameter>\n
//              </function>\n</tool_call>
//   Qwen 3:    <tool_call>\n{"name": NAME, "arguments": {...}}\n</tool_call>
#ifndef OXINFER_CORE_ENGINE_TOOL_CALL_H_
#define OXINFER_CORE_ENGINE_TOOL_CALL_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/chat/value.h"

namespace oxinfer::engine {

enum class ToolCallFormat { kNone, kGemma4, kQwenXml, kQwenJson };

const char* ToolCallFormatName(ToolCallFormat format);

// The format a chat template writes its tool calls in (kNone: it has none),
// from the markers in its source.
ToolCallFormat DetectToolCallFormat(absl::string_view template_source);

struct ToolCall {
  std::string id;  // "call_1", ...: what the tool's answer refers to
  std::string name;
  chat::Value arguments = chat::Value::Dict();  // a dict, in the order the model wrote

  // The arguments as compact JSON: {"expression":"1+1"}.
  std::string ArgumentsJson() const;
};

// A call's arguments given as JSON text (OpenAI's function.arguments): a JSON
// object, key order kept. INVALID_ARGUMENT naming what is wrong.
absl::StatusOr<chat::Value> ParseArgumentsJson(absl::string_view json);

}  // namespace oxinfer::engine

#endif  // OXINFER_CORE_ENGINE_TOOL_CALL_H_
