// The tool-calling loop every host runs the same way: respond; while the
// reply calls tools, run each, add its answer to the conversation (through
// the checkpoint's own template on the next turn), and respond again.
#ifndef OXINFER_CORE_ENGINE_TOOL_LOOP_H_
#define OXINFER_CORE_ENGINE_TOOL_LOOP_H_

#include <functional>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "core/engine/generation.h"
#include "core/engine/session.h"
#include "core/engine/tool_call.h"

namespace oxinfer::engine {

// Runs one call and returns what the model is told: the result, or an error
// text ("error: ...") the model can read; nullopt when the host cannot run
// it (the loop then ends with that reply, its calls unanswered).
using ToolRunner = std::function<std::optional<std::string>(const ToolCall& call)>;
// Told each call with what it returned, after it ran.
using ToolResultCallback = std::function<void(const ToolCall& call, const std::string& result)>;

struct ToolLoopOptions {
  // Replies that call tools before the loop gives up (the last reply is
  // returned as it is).
  int max_rounds = 8;
};

// The final reply (the one without calls, the cancelled one, or one with
// calls the host cannot run). Every
// turn's messages, calls and answers are in session.messages().
absl::StatusOr<Reply> RespondWithTools(Session& session, const ChatOptions& chat,
                                       const GenerationOptions& options, const ToolRunner& run,
                                       const EventCallback& on_event = nullptr,
                                       const ToolResultCallback& on_result = nullptr,
                                       const ToolLoopOptions& loop = {});

}  // namespace oxinfer::engine

#endif  // OXINFER_CORE_ENGINE_TOOL_LOOP_H_
