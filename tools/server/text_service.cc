#include "tools/server/text_service.h"

#include <ctime>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/server/client_connection.h"
#include "tools/server/text_response.h"

namespace oxinfer::server {
namespace {

// Everything a streamed reply needs after the handler returned.
struct Job {
  TextRequest request;
  std::unique_ptr<SlotLease> lease;
  engine::Prompt prompt;
  engine::GenerationOptions options;
  ReplyHeader header;
  std::unique_ptr<ClientConnection> client;
};

// What the slot's sequence holds after a reply to `prompt`.
std::vector<int32_t> HeldTokens(const engine::Prompt& prompt, const engine::Reply& reply) {
  std::vector<int32_t> tokens = prompt.tokens;
  tokens.insert(tokens.end(), reply.tokens.begin(), reply.tokens.end());
  return tokens;
}

}  // namespace

void SetError(httplib::Response& res, const ApiError& error) {
  res.status = error.status;
  if (error.status == 429 || error.status == 503) res.set_header("Retry-After", "1");
  res.set_content(error.Body(), "application/json");
}

std::string TextService::NextId(const char* prefix) {
  thread_local std::mt19937_64 rng(std::random_device{}());
  return absl::StrFormat("%s-%d%012x", prefix, next_id_.fetch_add(1), rng() & 0xffffffffffffULL);
}

void TextService::Handle(TextRequest request, const httplib::Request& req, httplib::Response& res) {
  auto job = std::make_shared<Job>();
  job->lease = slots_.Acquire();
  if (job->lease == nullptr) {
    ApiError e;
    if (slots_.closed()) {
      e.status = 503;
      e.type = "server_error";
      e.message = "the server is shutting down";
    } else {
      e.status = 429;
      e.type = "rate_limit_error";
      e.message = absl::StrFormat("all %d slots are busy and the queue is full; retry later",
                                  slots_.size());
    }
    SetError(res, e);
    return;
  }
  absl::StatusOr<engine::Prompt> prompt;
  {
    engine::Session& renderer = job->lease->session();
    if (request.chat) {
      renderer.SetMessages(std::move(request.messages));
      engine::ChatOptions chat;
      chat.tools = request.tools;
      chat.template_kwargs = request.template_kwargs;
      prompt = renderer.ChatPrompt(chat);
    } else {
      prompt = renderer.RawPrompt(request.prompt);
    }
  }
  const char* prompt_param = request.chat ? "messages" : "prompt";
  if (!prompt.ok()) {
    SetError(res, FromStatus(prompt.status(), prompt_param));
    return;
  }
  if (prompt->tokens.empty()) {
    SetError(res, BadRequest(prompt_param, "the prompt is empty after tokenisation"));
    return;
  }
  const int64_t context = engine_.model_info().context_length;
  if (context > 0 && static_cast<int64_t>(prompt->tokens.size()) >= context) {
    ApiError e = BadRequest(
        prompt_param,
        absl::StrFormat("the prompt has %d tokens; the model's context holds %d (the prompt "
                        "must leave room for at least one generated token)",
                        prompt->tokens.size(), context));
    e.code = "context_length_exceeded";
    SetError(res, e);
    return;
  }
  // Now that the prompt is known, the slot that holds most of it.
  const int rendered_in = job->lease->index();
  engine::Session& first = job->lease->session();
  job->lease->MoveFor(prompt->tokens);
  engine::Session& session = job->lease->session();
  if (job->lease->index() != rendered_in && request.chat) {
    session.SetMessages(first.messages());
    first.SetMessages({});
  }
  sampling::SamplingParams sampling = request.sampling;
  if (!request.seed_given) sampling.seed = std::random_device{}() * 0x100000001ULL;
  if (absl::Status s = session.SetSampling(sampling); !s.ok()) {
    SetError(res, FromStatus(s, "temperature"));
    return;
  }
  job->prompt = *std::move(prompt);
  job->options.max_tokens = request.max_tokens;
  job->options.stop_strings = request.stop;
  job->header.id = NextId(request.chat ? "chatcmpl" : "cmpl");
  job->header.created = static_cast<int64_t>(std::time(nullptr));
  job->header.model = model_id_;
  job->request = std::move(request);

  job->client = std::make_unique<ClientConnection>(req);
  if (!job->request.stream) {
    ClientConnection& client = *job->client;
    absl::StatusOr<engine::Reply> reply =
        session.Generate(job->prompt, job->options, [&](const engine::StreamEvent&) {
          if (client.Gone()) session.Cancel();
        });
    if (!reply.ok()) {
      SetError(res, FromStatus(reply.status(), prompt_param));
      return;
    }
    metrics_.AddPromptTokens(reply->stats.prompt_tokens);
    metrics_.AddCompletionTokens(reply->stats.generated_tokens);
    job->lease->Remember(HeldTokens(job->prompt, *reply));
    const Json body = job->request.chat ? ChatCompletion(job->header, *reply)
                                        : TextCompletion(job->header, *reply);
    res.set_content(Dump(body), "application/json");
    return;
  }

  res.set_header("Cache-Control", "no-cache");
  res.set_header("X-Accel-Buffering", "no");  // proxies pass events on at once
  Metrics& metrics = metrics_;
  res.set_chunked_content_provider("text/event-stream", [job, &metrics](size_t /*offset*/,
                                                                        httplib::DataSink& sink) {
    engine::Session& session = job->lease->session();
    const TextRequest& r = job->request;
    const bool usage = r.include_usage;
    bool gone = false;
    auto send = [&](const std::string& data) {
      if (gone) return;
      if (!sink.write(data.data(), data.size())) {
        gone = true;  // the client left: stop generating for it
        session.Cancel();
      }
    };
    if (r.chat) {
      send(SseEvent(
          ChatChunk(job->header, Json{{"role", "assistant"}, {"content", ""}}, nullptr, usage)));
    }
    int calls = 0;
    auto on_event = [&](const engine::StreamEvent& e) {
      if (e.tool_call != nullptr) {
        Json delta{{"tool_calls", Json::array({ToolCallJson(*e.tool_call, calls++)})}};
        send(SseEvent(ChatChunk(job->header, std::move(delta), nullptr, usage)));
        return;
      }
      if (e.text.empty()) return;
      const std::string text(e.text);
      if (!r.chat) {
        send(SseEvent(TextChunk(job->header, text, nullptr, usage)));
        return;
      }
      const char* key = e.channel == engine::Channel::kReasoning ? "reasoning_content" : "content";
      send(SseEvent(ChatChunk(job->header, Json{{key, text}}, nullptr, usage)));
    };
    absl::StatusOr<engine::Reply> reply = session.Generate(job->prompt, job->options, on_event);
    if (reply.ok()) {
      metrics.AddPromptTokens(reply->stats.prompt_tokens);
      metrics.AddCompletionTokens(reply->stats.generated_tokens);
      job->lease->Remember(HeldTokens(job->prompt, *reply));
    }
    if (gone) return false;
    if (!reply.ok()) {
      // The status line is sent: the error travels as an event.
      send(SseEvent(Json::parse(FromStatus(reply.status()).Body())));
      send("data: [DONE]\n\n");
      sink.done();
      return true;
    }
    const char* finish = FinishReason(*reply);
    send(SseEvent(r.chat ? ChatChunk(job->header, Json::object(), finish, usage)
                         : TextChunk(job->header, "", finish, usage)));
    if (usage) {
      send(SseEvent(UsageChunk(job->header, r.chat ? "chat.completion.chunk" : "text_completion",
                               reply->stats)));
    }
    send("data: [DONE]\n\n");
    if (gone) return false;
    sink.done();
    return true;
  });
}

}  // namespace oxinfer::server
