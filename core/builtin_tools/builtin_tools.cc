#include "core/builtin_tools/builtin_tools.h"

#include <ctime>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/builtin_tools/calculator.h"

namespace oxinfer::builtin_tools {
namespace {

// Kept as JSON text, the form declarations are written in (and the same as
// tools/reference/tools/make_tool_prompt_fixtures.py's BUILTIN).
constexpr char kDeclarations[] = R"json([
 {"type": "function", "function": {
  "name": "calculate",
  "description": "Evaluate an arithmetic expression exactly: + - * / ^ and parentheses over integers and decimals.",
  "parameters": {"type": "object",
   "properties": {"expression": {"type": "string", "description": "The expression, e.g. 1234.5 * 6789 - 2^20"}},
   "required": ["expression"]}}},
 {"type": "function", "function": {
  "name": "get_current_datetime",
  "description": "The current local date, time and time zone.",
  "parameters": {"type": "object", "properties": {}}}}
])json";

}  // namespace

chat::Value Declarations() {
  auto tools = chat::Value::FromJson(kDeclarations);
  return tools.ok() ? *tools : chat::Value::Array();
}

std::string LocalDateTime() {
  const std::time_t now = std::time(nullptr);
  std::tm local = {};
  localtime_r(&now, &local);
  char when[128];
  std::strftime(when, sizeof when, "%A, %B %d, %Y, %H:%M:%S", &local);
  char zone[64];
  std::strftime(zone, sizeof zone, "%Z (UTC%z)", &local);
  return absl::StrCat(when, " ", zone);
}

std::string Run(const engine::ToolCall& call) {
  if (call.name == "get_current_datetime") return LocalDateTime();
  if (call.name == "calculate") {
    const chat::Value* expr =
        call.arguments.is_dict() ? call.arguments.object().Find("expression") : nullptr;
    if (expr == nullptr || !expr->is_string()) {
      return "error: calculate needs a string argument \"expression\"";
    }
    auto result = Calculate(expr->as_string());
    if (!result.ok()) return absl::StrCat("error: ", result.status().message());
    return *result;
  }
  return absl::StrCat("error: no tool named '", call.name,
                      "' (the tools are calculate and get_current_datetime)");
}

}  // namespace oxinfer::builtin_tools
