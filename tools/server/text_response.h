// The OpenAI API's objects for a generated reply: chat.completion and its
// chat.completion.chunk pieces, text_completion (both whole and streamed),
// usage, and the finish_reason a stop maps to.
#ifndef OXINFER_TOOLS_SERVER_TEXT_RESPONSE_H_
#define OXINFER_TOOLS_SERVER_TEXT_RESPONSE_H_

#include <cstdint>
#include <string>

#include "core/engine/generation.h"
#include "nlohmann/json.hpp"

namespace oxinfer::server {

using Json = nlohmann::ordered_json;

// What every object of one reply shares.
struct ReplyHeader {
  std::string id;
  int64_t created = 0;
  std::string model;
};

// "stop", "length" or "tool_calls".
const char* FinishReason(const engine::Reply& reply);
Json Usage(const engine::TurnStats& stats);
// The reply's call as the API writes it ({"id", "type", "function"}); in a
// stream also its "index".
Json ToolCallJson(const engine::ToolCall& call, int index = -1);

Json ChatCompletion(const ReplyHeader& h, const engine::Reply& reply);
// One chunk with `delta` (and finish_reason when not null).
Json ChatChunk(const ReplyHeader& h, Json delta, const char* finish_reason, bool with_usage);
Json TextCompletion(const ReplyHeader& h, const engine::Reply& reply);
Json TextChunk(const ReplyHeader& h, const std::string& text, const char* finish_reason,
               bool with_usage);
// The stream's last chunk with include_usage: "choices": [] and the usage.
Json UsageChunk(const ReplyHeader& h, const char* object, const engine::TurnStats& stats);

// Compact JSON, invalid UTF-8 replaced (the engine's text is whole characters).
std::string Dump(const Json& j);
// `data: JSON\n\n`.
std::string SseEvent(const Json& j);

}  // namespace oxinfer::server

#endif  // OXINFER_TOOLS_SERVER_TEXT_RESPONSE_H_
