// The vocabulary of one generated reply: what a host asks for
// (GenerationOptions), what it receives while the reply streams (StreamEvent)
// and when it is done (Reply).
#ifndef OXINFER_CORE_ENGINE_GENERATION_H_
#define OXINFER_CORE_ENGINE_GENERATION_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/chat/value.h"
#include "core/engine/tool_call.h"

namespace oxinfer::engine {

// The embedding rows (soft tokens) of a prompt's attachments, by position
// (media_prompt.h).
struct PromptMedia {
  int32_t hidden_size = 0;
  std::vector<float> rows;    // [tokens][hidden_size]; zero where mask is 0
  std::vector<uint8_t> mask;  // [tokens]: 1 where the row replaces the token's embedding
  // [tokens]: 0 for text, else a hash of the attachment's tokens and rows, so
  // that prefix reuse tells two images with the same placeholders apart.
  std::vector<uint64_t> keys;
  int64_t n_soft_tokens = 0;  // positions with mask 1

  // The rows where mask is 1, in order: [n_soft_tokens][hidden_size].
  std::vector<float> SoftTokens() const;
};

// The text fed to the model for one reply, and its tokens.
struct Prompt {
  // As the template rendered it: one placeholder per attachment.
  std::string text;
  // The ids the model reads: the placeholders expanded to their attachments'
  // tokens.
  std::vector<int32_t> tokens;
  // Null for a prompt without attachments.
  std::shared_ptr<const PromptMedia> media;
  // The text ends inside a reasoning block it opened (a template's generation
  // prompt that starts the model thinking), so the reply starts as reasoning.
  bool opens_reasoning = false;
  // The tools the template declared (a list; None when none): a reply to
  // this prompt is parsed for calls in tool_format.
  chat::Value tools = chat::Value::None();
  ToolCallFormat tool_format = ToolCallFormat::kNone;

  bool parses_tool_calls() const {
    return tool_format != ToolCallFormat::kNone && tools.is_array() && !tools.array().empty();
  }
};

struct GenerationOptions {
  // At most this many tokens; 0: none (the prompt is only read, e.g. for its
  // logits); < 0: until a stop or the end of the context.
  int64_t max_tokens = 512;
  // The reply ends before the first of these texts (which is not part of it).
  std::vector<std::string> stop_strings;
  // Fill Reply::prompt_logits with the logits at the prompt's last position.
  bool return_prompt_logits = false;
  // Fill Reply::draft_rounds (speculative decoding only).
  bool record_drafts = false;
};

// One round of speculative decoding: what the drafter proposed and how many
// of them (a prefix) the main model agreed with.
struct DraftRound {
  std::vector<int32_t> drafts;
  int32_t accepted = 0;
};

// Streamed text goes to one of two channels: the reply itself, or the
// reasoning trace between the model's reasoning markers (removed).
enum class Channel { kContent, kReasoning };

struct StreamEvent {
  Channel channel = Channel::kContent;
  // Valid during the callback; whole UTF-8 characters. Empty when the event
  // only marks a switch of channel (where a reasoning marker was).
  absl::string_view text;
  // Non-null (and text empty) when the event is a complete tool call of the
  // content channel; valid during the callback.
  const ToolCall* tool_call = nullptr;
};

// Called on the thread that asked for the reply, once per piece of text.
using EventCallback = std::function<void(const StreamEvent&)>;

enum class StopReason {
  kStopToken,    // the model ended its turn
  kStopString,   // one of GenerationOptions::stop_strings
  kMaxTokens,    // GenerationOptions::max_tokens
  kContextFull,  // the sequence reached the model's context length
  kCancelled,    // Session::Cancel
};

const char* StopReasonName(StopReason reason);

struct TurnStats {
  int64_t prompt_tokens = 0;
  int64_t reused_tokens = 0;  // of prompt_tokens, already held by the session's sequence
  int64_t generated_tokens = 0;
  double prefill_seconds = 0;  // until the first token was sampled
  double decode_seconds = 0;   // from then on
  // Speculative decoding: tokens drafted, and of them accepted.
  int64_t drafted_tokens = 0;
  int64_t accepted_tokens = 0;
};

struct Reply {
  std::string content;
  std::string reasoning;
  // The calls the reply made (their text is not in content), ids call_1, ...
  std::vector<ToolCall> tool_calls;
  std::vector<int32_t> tokens;  // what was generated, without the stop token
  StopReason stop_reason = StopReason::kStopToken;
  TurnStats stats;
  std::vector<float> prompt_logits;      // vocab_size floats when asked for
  std::vector<DraftRound> draft_rounds;  // GenerationOptions::record_drafts

  bool cancelled() const { return stop_reason == StopReason::kCancelled; }
};

}  // namespace oxinfer::engine

#endif  // OXINFER_CORE_ENGINE_GENERATION_H_
