#include "core/engine/tool_loop.h"

#include <utility>
#include <vector>

namespace oxinfer::engine {

absl::StatusOr<Reply> RespondWithTools(Session& session, const ChatOptions& chat,
                                       const GenerationOptions& options, const ToolRunner& run,
                                       const EventCallback& on_event,
                                       const ToolResultCallback& on_result,
                                       const ToolLoopOptions& loop) {
  for (int round = 0;; ++round) {
    auto reply = session.Respond(chat, options, on_event);
    if (!reply.ok()) return reply.status();
    if (reply->tool_calls.empty() || reply->cancelled() || round + 1 >= loop.max_rounds) {
      return reply;
    }
    std::vector<Message> answers;
    for (const ToolCall& call : reply->tool_calls) {
      std::optional<std::string> result = run(call);
      if (!result) return reply;
      if (on_result) on_result(call, *result);
      answers.push_back(Message::ToolResult(call, *std::move(result)));
    }
    for (Message& m : answers) session.AddMessage(std::move(m));
  }
}

}  // namespace oxinfer::engine
