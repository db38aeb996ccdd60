// The tools the CLI's --tools offers a model: `calculate` (calculator.h) and
// `get_current_datetime` (the local date, time and zone). Nothing else runs.
#ifndef OXINFER_CORE_BUILTIN_TOOLS_BUILTIN_TOOLS_H_
#define OXINFER_CORE_BUILTIN_TOOLS_BUILTIN_TOOLS_H_

#include <string>

#include "core/chat/value.h"
#include "core/engine/tool_call.h"

namespace oxinfer::builtin_tools {

// Their declarations, as templates get them: a list of {"type": "function",
// "function": {"name", "description", "parameters"}}.
chat::Value Declarations();

// Runs a call of a built-in tool and returns what the model is told: the
// result, or "error: ..." (an unknown tool, bad arguments, a refused
// expression).
std::string Run(const engine::ToolCall& call);

// "Tuesday, December 01, 2026, 16:26:33 UTC (UTC+0000)" for now, local time.
std::string LocalDateTime();

}  // namespace oxinfer::builtin_tools

#endif  // OXINFER_CORE_BUILTIN_TOOLS_BUILTIN_TOOLS_H_
