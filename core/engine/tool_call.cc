#include "core/engine/tool_call.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace oxinfer::engine {

const char* ToolCallFormatName(ToolCallFormat format) {
  switch (format) {
    case ToolCallFormat::kNone:
      return "none";
    case ToolCallFormat::kGemma4:
      return "gemma4";
    case ToolCallFormat::kQwenXml:
      return "qwen-xml";
    case ToolCallFormat::kQwenJson:
      return "qwen-json";
  }
  return "?";
}

ToolCallFormat DetectToolCallFormat(absl::string_view source) {
  if (absl::StrContains(source, "<|tool_call>call:")) return ToolCallFormat::kGemma4;
  if (absl::StrContains(source, "<tool_call>")) {
    return absl::StrContains(source, "<function=") ? ToolCallFormat::kQwenXml
                                                   : ToolCallFormat::kQwenJson;
  }
  return ToolCallFormat::kNone;
}

std::string ToolCall::ArgumentsJson() const {
  auto json = arguments.ToJson(/*ensure_ascii=*/false, /*indent=*/-1, "", ",", ":");
  return json.ok() ? *json : "{}";
}

absl::StatusOr<chat::Value> ParseArgumentsJson(absl::string_view json) {
  auto value = chat::Value::FromJson(json);
  if (!value.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("arguments are not valid JSON: ", value.status().message()));
  }
  if (!value->is_dict()) {
    return absl::InvalidArgumentError(
        absl::StrCat("arguments must be a JSON object, got ", value->TypeName()));
  }
  return value;
}

}  // namespace oxinfer::engine
