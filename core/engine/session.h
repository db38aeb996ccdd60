// A conversation with a language model: its messages, the model sequence
// that holds its tokens between turns, and its sampler.
//
//   auto session = engine->NewSession({});
//   (*session)->AddMessage(Message::Text(Role::kUser, "Hello"));
//   auto reply = (*session)->Respond({}, {}, [](const StreamEvent& e) { ... });
//
// Each reply reuses what the sequence already holds of its prompt (a chat's
// earlier turns are not computed again). Sessions of one engine generate at
// the same time from different threads; the engine batches them.
//
// Threading: a Session is used by one thread at a time, except Cancel(),
// which any thread or a signal handler may call at any time.
#ifndef OXINFER_CORE_ENGINE_SESSION_H_
#define OXINFER_CORE_ENGINE_SESSION_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/chat/value.h"
#include "core/engine/chat_prompt.h"
#include "core/engine/checkpoint_text.h"
#include "core/engine/generation.h"
#include "core/engine/media_prompt.h"
#include "core/engine/message.h"
#include "core/engine/model_info.h"
#include "core/engine/scheduler.h"
#include "core/engine/sequence_pool.h"
#include "core/sampling/sampler.h"

namespace oxinfer::engine {

struct SessionOptions {
  // The session's sampler. Its random stream starts from sampling.seed and
  // runs on across turns (SetSampling starts a new one). SamplingParams'
  // defaults are transformers' (temperature 1); temperature 0 is greedy.
  sampling::SamplingParams sampling;
};

// What a session borrows from its engine.
struct SessionContext {
  const ModelInfo* info = nullptr;
  const CheckpointText* text = nullptr;
  BatchScheduler* scheduler = nullptr;
  SequencePool* pool = nullptr;
  // Null for models without media input.
  MediaEncoder encode_media;
};

class Session {
 public:
  // Releases the session's sequence. Every session ends before its engine.
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // ---- the conversation ----
  const std::vector<Message>& messages() const { return messages_; }
  void AddMessage(Message message) { messages_.push_back(std::move(message)); }
  void SetMessages(std::vector<Message> messages) { messages_ = std::move(messages); }

  // ---- prompts ----
  // The messages rendered by the checkpoint's chat template, tokenised as
  // written (the template spells out the special tokens), with the
  // attachments' placeholders expanded (media_prompt.h; each attachment is
  // encoded once per session and budget). The engine adds no system prompt.
  // FAILED_PRECONDITION when the model has no template.
  absl::StatusOr<Prompt> ChatPrompt(const ChatOptions& options = {}) const;
  // `text` as-is, after the tokenizer's own special tokens (such as <bos>).
  // With `plain_special_tokens` the special tokens it spells are plain text
  // (transformers' split_special_tokens=True).
  absl::StatusOr<Prompt> RawPrompt(absl::string_view text, bool plain_special_tokens = false) const;

  // ---- generation ----
  // Generates a reply to `prompt`, streaming its text to `on_event` (may be
  // null) on this thread. A cancelled reply is not an error: it ends with
  // what was generated and stop_reason kCancelled. OUT_OF_RANGE (naming both
  // numbers) when the prompt does not fit the model's context.
  absl::StatusOr<Reply> Generate(const Prompt& prompt, const GenerationOptions& options,
                                 const EventCallback& on_event = nullptr);
  // ChatPrompt, Generate, and the reply appended to the messages as the
  // assistant's (its reasoning kept apart, its tool calls as tool_calls).
  // With chat.tools, the reply's calls are in Reply::tool_calls; a host runs
  // them, adds Message::ToolResult for each and responds again (tool_loop.h).
  absl::StatusOr<Reply> Respond(const ChatOptions& chat, const GenerationOptions& options,
                                const EventCallback& on_event = nullptr);

  // Replaces the sampler (a new random stream from params.seed).
  absl::Status SetSampling(const sampling::SamplingParams& params);

  // Stops the reply being generated, or else the next one, as soon as
  // possible. Async-signal-safe.
  void Cancel() { cancel_.store(true); }

  int32_t sequence_id() const { return seq_; }

 private:
  friend class Engine;
  Session(const SessionContext& context, int32_t seq, const sampling::SamplingParams& sampling);

  static_assert(std::atomic<bool>::is_always_lock_free, "Cancel() must be async-signal-safe");

  const SessionContext context_;
  const int32_t seq_;
  sampling::Sampler sampler_;
  std::vector<Message> messages_;
  // Encoded attachments by (image or audio object, budget); the entry keeps
  // its object alive so that the address is not reused.
  struct CachedMedia {
    std::shared_ptr<const void> source;
    std::shared_ptr<const EncodedMedia> encoded;
  };
  mutable std::map<std::pair<const void*, int32_t>, CachedMedia> media_cache_;
  std::atomic<bool> cancel_{false};
  int64_t calls_made_ = 0;  // numbers the tool calls' ids
};

}  // namespace oxinfer::engine

#endif  // OXINFER_CORE_ENGINE_SESSION_H_
