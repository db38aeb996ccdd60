#include "core/engine/session.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/engine/text_filters.h"
#include "core/engine/tool_call_parser.h"
#include "core/tokenizer/tokenizer.h"

namespace oxinfer::engine {
Session::Session(const SessionContext& context, int32_t seq,
                 const sampling::SamplingParams& sampling)
    : context_(context), seq_(seq), sampler_(sampling) {}

Session::~Session() {
  context_.scheduler->FreeSequence(seq_);
  context_.pool->Release(seq_);
}

absl::StatusOr<Prompt> Session::ChatPrompt(const ChatOptions& options) const {
  if (absl::Status s = CheckMessagesUtf8(messages_); !s.ok()) return s;
  auto prompt = RenderChatPrompt(*context_.text, *context_.info, messages_, options);
  if (!prompt.ok() || !options.expand_media) return prompt;
  MediaEncoder cached;
  if (context_.encode_media) {
    cached = [this](const ContentPart& part,
                    int32_t budget) -> absl::StatusOr<std::shared_ptr<const EncodedMedia>> {
      std::shared_ptr<const void> source;
      if (part.type == ContentPart::Type::kImage) {
        source = part.image;
      } else {
        source = part.audio;
        budget = 0;  // the budget is the images'
      }
      if (source == nullptr) return absl::InvalidArgumentError("an attachment without data");
      const auto key = std::make_pair(source.get(), budget);
      if (auto it = media_cache_.find(key); it != media_cache_.end()) return it->second.encoded;
      auto e = context_.encode_media(part, budget);
      if (!e.ok()) return e.status();
      media_cache_[key] = CachedMedia{source, *e};
      return *e;
    };
  }
  if (absl::Status s = ExpandMedia(messages_, options.max_soft_tokens, context_.info->hidden_size,
                                   cached, &*prompt);
      !s.ok()) {
    return s;
  }
  return prompt;
}

absl::StatusOr<Prompt> Session::RawPrompt(absl::string_view text, bool plain_special_tokens) const {
  if (absl::Status s = CheckUtf8(text, "the prompt"); !s.ok()) return s;
  Prompt p;
  tokenizer::Tokenizer::EncodeOptions encode;
  encode.split_special_tokens = plain_special_tokens;
  p.tokens = context_.text->tokenizer->Encode(text, encode);
  p.opens_reasoning = OpensReasoning(text, *context_.info);
  p.text = std::string(text);
  return p;
}

absl::Status Session::SetSampling(const sampling::SamplingParams& params) {
  if (absl::Status s = params.Validate(); !s.ok()) return s;
  sampler_ = sampling::Sampler(params);
  return absl::OkStatus();
}

absl::StatusOr<Reply> Session::Generate(const Prompt& prompt, const GenerationOptions& options,
                                        const EventCallback& on_event) {
  const ModelInfo& info = *context_.info;
  const std::vector<int32_t>& ids = prompt.tokens;
  if (ids.empty()) return absl::InvalidArgumentError("the prompt is empty after tokenisation");
  for (int32_t id : ids) {
    if (id < 0 || id >= info.vocab_size) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "prompt token %d is outside the model's vocabulary of %d", id, info.vocab_size));
    }
  }
  if (const PromptMedia* m = prompt.media.get();
      m != nullptr && (m->hidden_size != info.hidden_size || m->mask.size() != ids.size() ||
                       m->keys.size() != ids.size() ||
                       m->rows.size() != ids.size() * static_cast<size_t>(m->hidden_size))) {
    return absl::InvalidArgumentError("the prompt's media rows do not match its tokens");
  }
  if (info.context_length > 0 && static_cast<int64_t>(ids.size()) > info.context_length) {
    return absl::OutOfRangeError(absl::StrFormat(
        "the prompt has %d tokens, more than the %d of the model's context (EngineOptions::"
        "context_length / --context)",
        ids.size(), info.context_length));
  }

  TurnRequest request;
  request.seq = seq_;
  request.prompt = ids;
  request.media = prompt.media;
  request.sampler = &sampler_;
  request.stop_tokens = &context_.text->stop_tokens;
  request.max_tokens = options.max_tokens;
  request.return_prompt_logits = options.return_prompt_logits;
  request.record_drafts = options.record_drafts;
  request.cancel = &cancel_;
  std::shared_ptr<Turn> turn = context_.scheduler->Start(std::move(request));

  Reply reply;
  auto deliver = [&](Channel channel, absl::string_view text) {
    (channel == Channel::kContent ? reply.content : reply.reasoning)
        .append(text.data(), text.size());
    if (on_event) on_event(StreamEvent{channel, text});
  };
  // Content goes through the tool-call parser when the prompt declared tools.
  ToolCallParser calls(prompt.parses_tool_calls() ? prompt.tool_format : ToolCallFormat::kNone,
                       prompt.tools);
  auto content = [&](absl::string_view text) { deliver(Channel::kContent, text); };
  auto call = [&](ToolCall c) {
    c.id = absl::StrCat("call_", ++calls_made_);
    reply.tool_calls.push_back(std::move(c));
    if (on_event) {
      StreamEvent e;
      e.tool_call = &reply.tool_calls.back();
      on_event(e);
    }
  };
  auto emit = [&](Channel channel, absl::string_view text) {
    if (channel == Channel::kContent) {
      calls.Feed(text, content, call);
      if (text.empty()) deliver(channel, text);
    } else {
      calls.Flush(content);  // a call does not span a reasoning block
      deliver(channel, text);
    }
  };
  tokenizer::StreamDecoder decoder(*context_.text->tokenizer, /*skip_special_tokens=*/false);
  StopStringFilter stops(options.stop_strings);
  ReasoningSplitter splitter(info.reasoning_start, info.reasoning_end, prompt.opens_reasoning);
  // Set when this side ended the turn; tokens sampled after that are dropped.
  std::optional<StopReason> ended;
  std::vector<int32_t> batch;
  while (turn->Next(&batch)) {
    for (int32_t id : batch) {
      if (ended) break;
      if (cancel_.load()) {
        ended = StopReason::kCancelled;
        turn->Stop();
        break;
      }
      reply.tokens.push_back(id);
      splitter.Feed(stops.Feed(decoder.Step(id)), emit);
      if (stops.stopped()) {
        ended = StopReason::kStopString;
        turn->Stop();
      }
    }
    batch.clear();
  }
  cancel_.store(false);
  const TurnOutcome& outcome = turn->outcome();
  if (!outcome.status.ok()) return outcome.status;
  if (!stops.stopped()) {
    splitter.Feed(stops.Feed(decoder.Flush()), emit);
    if (stops.stopped()) {
      ended = StopReason::kStopString;
    } else {
      splitter.Feed(stops.Flush(), emit);
    }
  }
  splitter.Flush(emit);
  calls.Flush(content);

  reply.stop_reason = ended.value_or(outcome.stop_reason);
  reply.prompt_logits = outcome.prompt_logits;
  TurnStats& stats = reply.stats;
  stats.prompt_tokens = static_cast<int64_t>(ids.size());
  stats.reused_tokens = outcome.reused_tokens;
  stats.generated_tokens = static_cast<int64_t>(reply.tokens.size());
  stats.prefill_seconds = outcome.prefill_seconds;
  stats.decode_seconds = outcome.decode_seconds;
  stats.drafted_tokens = outcome.drafted_tokens;
  stats.accepted_tokens = outcome.accepted_tokens;
  reply.draft_rounds = outcome.draft_rounds;
  return reply;
}

absl::StatusOr<Reply> Session::Respond(const ChatOptions& chat, const GenerationOptions& options,
                                       const EventCallback& on_event) {
  auto prompt = ChatPrompt(chat);
  if (!prompt.ok()) return prompt.status();
  auto reply = Generate(*prompt, options, on_event);
  if (!reply.ok()) return reply.status();
  Message answer = Message::Text(Role::kAssistant, reply->content);
  answer.reasoning = reply->reasoning;
  answer.tool_calls = reply->tool_calls;
  messages_.push_back(std::move(answer));
  return reply;
}

}  // namespace oxinfer::engine
