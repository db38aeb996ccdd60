#include "tools/server/text_response.h"

#include <utility>

namespace oxinfer::server {

const char* FinishReason(const engine::Reply& reply) {
  if (!reply.tool_calls.empty()) return "tool_calls";
  switch (reply.stop_reason) {
    case engine::StopReason::kMaxTokens:
    case engine::StopReason::kContextFull:
      return "length";
    default:
      return "stop";
  }
}

Json Usage(const engine::TurnStats& stats) {
  Json u;
  u["prompt_tokens"] = stats.prompt_tokens;
  u["completion_tokens"] = stats.generated_tokens;
  u["total_tokens"] = stats.prompt_tokens + stats.generated_tokens;
  u["prompt_tokens_details"] = Json{{"cached_tokens", stats.reused_tokens}};
  return u;
}

Json ToolCallJson(const engine::ToolCall& call, int index) {
  Json c;
  if (index >= 0) c["index"] = index;
  c["id"] = call.id;
  c["type"] = "function";
  c["function"] = Json{{"name", call.name}, {"arguments", call.ArgumentsJson()}};
  return c;
}

namespace {

Json Envelope(const ReplyHeader& h, const char* object) {
  Json j;
  j["id"] = h.id;
  j["object"] = object;
  j["created"] = h.created;
  j["model"] = h.model;
  j["system_fingerprint"] = "oxinfer";
  return j;
}

}  // namespace

Json ChatCompletion(const ReplyHeader& h, const engine::Reply& reply) {
  Json message;
  message["role"] = "assistant";
  // As the API does: null content when the reply only calls tools.
  message["content"] =
      reply.content.empty() && !reply.tool_calls.empty() ? Json(nullptr) : Json(reply.content);
  if (!reply.reasoning.empty()) message["reasoning_content"] = reply.reasoning;
  if (!reply.tool_calls.empty()) {
    Json calls = Json::array();
    for (const engine::ToolCall& c : reply.tool_calls) calls.push_back(ToolCallJson(c));
    message["tool_calls"] = std::move(calls);
  }
  Json choice;
  choice["index"] = 0;
  choice["message"] = std::move(message);
  choice["logprobs"] = nullptr;
  choice["finish_reason"] = FinishReason(reply);
  Json j = Envelope(h, "chat.completion");
  j["choices"] = Json::array({std::move(choice)});
  j["usage"] = Usage(reply.stats);
  return j;
}

Json ChatChunk(const ReplyHeader& h, Json delta, const char* finish_reason, bool with_usage) {
  Json choice;
  choice["index"] = 0;
  choice["delta"] = std::move(delta);
  choice["logprobs"] = nullptr;
  choice["finish_reason"] = finish_reason == nullptr ? Json(nullptr) : Json(finish_reason);
  Json j = Envelope(h, "chat.completion.chunk");
  j["choices"] = Json::array({std::move(choice)});
  if (with_usage) j["usage"] = nullptr;  // as the API: null on every chunk but the last
  return j;
}

Json TextCompletion(const ReplyHeader& h, const engine::Reply& reply) {
  Json choice;
  choice["text"] = reply.reasoning + reply.content;
  choice["index"] = 0;
  choice["logprobs"] = nullptr;
  choice["finish_reason"] = FinishReason(reply);
  Json j = Envelope(h, "text_completion");
  j["choices"] = Json::array({std::move(choice)});
  j["usage"] = Usage(reply.stats);
  return j;
}

Json TextChunk(const ReplyHeader& h, const std::string& text, const char* finish_reason,
               bool with_usage) {
  Json choice;
  choice["text"] = text;
  choice["index"] = 0;
  choice["logprobs"] = nullptr;
  choice["finish_reason"] = finish_reason == nullptr ? Json(nullptr) : Json(finish_reason);
  Json j = Envelope(h, "text_completion");
  j["choices"] = Json::array({std::move(choice)});
  if (with_usage) j["usage"] = nullptr;
  return j;
}

Json UsageChunk(const ReplyHeader& h, const char* object, const engine::TurnStats& stats) {
  Json j = Envelope(h, object);
  j["choices"] = Json::array();
  j["usage"] = Usage(stats);
  return j;
}

std::string Dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

std::string SseEvent(const Json& j) { return "data: " + Dump(j) + "\n\n"; }

}  // namespace oxinfer::server
