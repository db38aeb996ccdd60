// oxinfer_session_*: conversations, tools and generation over the engine's
// sessions (core/engine/session.h, tool_loop.h).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "capi/handles.h"
#include "core/builtin_tools/builtin_tools.h"
#include "core/engine/conversation_json.h"
#include "core/engine/media_parts.h"
#include "core/engine/message.h"

namespace oxinfer::capi {
namespace {

using engine::Message;
using engine::Role;

// Holds a session's busy lock for one call, or says why not.
class SessionCall {
 public:
  explicit SessionCall(oxinfer_session* s) : s_(s) {
    if (s_ != nullptr) locked_ = s_->busy.try_lock();
  }
  ~SessionCall() {
    if (locked_) s_->busy.unlock();
  }
  SessionCall(const SessionCall&) = delete;
  SessionCall& operator=(const SessionCall&) = delete;

  // OXINFER_OK when the call may go on.
  oxinfer_status Check(const char* what) const {
    if (s_ == nullptr)
      return Fail(OXINFER_INVALID_ARGUMENT, absl::StrCat(what, ": session is NULL"));
    if (!locked_) {
      return Fail(OXINFER_FAILED_PRECONDITION,
                  absl::StrCat(what,
                               ": the session is in use by another thread (a session is "
                               "used by one thread at a time)"));
    }
    return OXINFER_OK;
  }

 private:
  oxinfer_session* s_;
  bool locked_ = false;
};

absl::StatusOr<Role> RoleOf(oxinfer_role role) {
  switch (role) {
    case OXINFER_ROLE_SYSTEM:
      return Role::kSystem;
    case OXINFER_ROLE_USER:
      return Role::kUser;
    case OXINFER_ROLE_ASSISTANT:
      return Role::kAssistant;
    case OXINFER_ROLE_TOOL:
      return Role::kTool;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown role ", static_cast<int>(role)));
}

absl::StatusOr<sampling::SamplingParams> SamplingOf(const oxinfer_sampling* s) {
  sampling::SamplingParams p;
  p.temperature = 0.0f;
  if (s == nullptr) return p;
  if (s->struct_size < offsetof(oxinfer_sampling, seed) + sizeof(s->seed)) {
    return absl::InvalidArgumentError(
        "oxinfer_sampling.struct_size too small (call oxinfer_sampling_init)");
  }
  p.temperature = s->temperature;
  p.top_k = s->top_k;
  p.top_p = s->top_p;
  p.min_p = s->min_p;
  p.repetition_penalty = s->repetition_penalty;
  p.seed = s->seed;
  if (absl::Status v = p.Validate(); !v.ok()) return v;
  return p;
}

struct Generation {
  engine::ChatOptions chat;
  engine::GenerationOptions options;
};

absl::StatusOr<Generation> GenerationOf(const oxinfer_session* s,
                                        const oxinfer_generate_options* o) {
  Generation g;
  g.chat = s->chat;
  g.chat.template_kwargs = chat::Value::Dict();
  oxinfer_generate_options defaults;
  oxinfer_generate_options_init(&defaults);
  if (o == nullptr) o = &defaults;
  if (o->struct_size <
      offsetof(oxinfer_generate_options, n_stop_strings) + sizeof(o->n_stop_strings)) {
    return absl::InvalidArgumentError(
        "oxinfer_generate_options.struct_size too small (call oxinfer_generate_options_init)");
  }
  g.options.max_tokens = o->max_tokens;
  // Fields after n_stop_strings exist only when the caller's struct has them.
  if (o->struct_size >= offsetof(oxinfer_generate_options, max_soft_tokens) +
                            sizeof(o->max_soft_tokens)) {
    if (o->max_soft_tokens < 0) {
      return absl::InvalidArgumentError(absl::StrCat("options.max_soft_tokens is ",
                                                     o->max_soft_tokens,
                                                     ": expected 0 (the model's default) or a budget"));
    }
    g.chat.max_soft_tokens = o->max_soft_tokens;
  }
  g.chat.add_generation_prompt = o->add_generation_prompt != 0;
  g.chat.template_kwargs.object().Set("enable_thinking", chat::Value(o->enable_thinking != 0));
  if (o->n_stop_strings > 0 && o->stop_strings == nullptr) {
    return absl::InvalidArgumentError("options.stop_strings is NULL but n_stop_strings is not 0");
  }
  for (size_t i = 0; i < o->n_stop_strings; ++i) {
    if (o->stop_strings[i] == nullptr || *o->stop_strings[i] == '\0') {
      return absl::InvalidArgumentError(absl::StrCat("options.stop_strings[", i, "] is empty"));
    }
    g.options.stop_strings.push_back(o->stop_strings[i]);
  }
  return g;
}

oxinfer_reply* ReplyOf(const engine::Reply& r) {
  auto* out = static_cast<oxinfer_reply*>(std::calloc(1, sizeof(oxinfer_reply)));
  out->struct_size = sizeof *out;
  out->content = Dup(r.content);
  out->reasoning = Dup(r.reasoning);
  out->n_tool_calls = r.tool_calls.size();
  if (!r.tool_calls.empty()) {
    out->tool_calls = static_cast<oxinfer_tool_call*>(
        std::calloc(r.tool_calls.size(), sizeof(oxinfer_tool_call)));
    for (size_t i = 0; i < r.tool_calls.size(); ++i) {
      out->tool_calls[i].id = Dup(r.tool_calls[i].id);
      out->tool_calls[i].name = Dup(r.tool_calls[i].name);
      out->tool_calls[i].arguments_json = Dup(r.tool_calls[i].ArgumentsJson());
    }
  }
  out->stop_reason = static_cast<oxinfer_stop_reason>(r.stop_reason);
  out->prompt_tokens = r.stats.prompt_tokens;
  out->reused_tokens = r.stats.reused_tokens;
  out->generated_tokens = r.stats.generated_tokens;
  out->prefill_seconds = r.stats.prefill_seconds;
  out->decode_seconds = r.stats.decode_seconds;
  return out;
}

}  // namespace
}  // namespace oxinfer::capi

using oxinfer::capi::Fail;
using oxinfer::capi::Guard;
using oxinfer::capi::SessionCall;

extern "C" {

void oxinfer_sampling_init(oxinfer_sampling* s) {
  if (s == nullptr) return;
  *s = oxinfer_sampling{};
  s->struct_size = sizeof *s;
  s->top_p = 1.0f;
  s->repetition_penalty = 1.0f;
}

void oxinfer_generate_options_init(oxinfer_generate_options* o) {
  if (o == nullptr) return;
  *o = oxinfer_generate_options{};
  o->struct_size = sizeof *o;
  o->max_tokens = 512;
  o->add_generation_prompt = 1;
}

oxinfer_status oxinfer_session_new(oxinfer_engine* engine, const oxinfer_sampling* sampling,
                                   oxinfer_session** out) {
  return Guard([&] {
    if (engine == nullptr || out == nullptr) {
      return Fail(OXINFER_INVALID_ARGUMENT, "oxinfer_session_new: NULL argument");
    }
    *out = nullptr;
    auto params = oxinfer::capi::SamplingOf(sampling);
    if (!params.ok()) return Fail(params.status());
    oxinfer::engine::SessionOptions options;
    options.sampling = *params;
    auto session = engine->engine->NewSession(options);
    if (!session.ok()) return Fail(session.status());
    auto handle = std::make_unique<oxinfer_session>();
    handle->owner = engine;
    handle->session = *std::move(session);
    engine->sessions.fetch_add(1);
    *out = handle.release();
    return OXINFER_OK;
  });
}

void oxinfer_session_free(oxinfer_session* session) {
  if (session == nullptr) return;
  oxinfer_engine* owner = session->owner;
  delete session;
  owner->sessions.fetch_sub(1);
}

void oxinfer_session_cancel(oxinfer_session* session) {
  if (session != nullptr && session->session != nullptr) session->session->Cancel();
}

oxinfer_status oxinfer_session_set_sampling(oxinfer_session* session, const oxinfer_sampling* s) {
  return Guard([&] {
    SessionCall call(session);
    if (oxinfer_status st = call.Check("oxinfer_session_set_sampling"); st != OXINFER_OK) return st;
    auto params = oxinfer::capi::SamplingOf(s);
    if (!params.ok()) return Fail(params.status());
    return Fail(session->session->SetSampling(*params));
  });
}

oxinfer_status oxinfer_session_add_message(oxinfer_session* session, oxinfer_role role,
                                           const oxinfer_content_part* parts, size_t n_parts) {
  return Guard([&] {
    SessionCall call(session);
    if (oxinfer_status st = call.Check("oxinfer_session_add_message"); st != OXINFER_OK) return st;
    auto r = oxinfer::capi::RoleOf(role);
    if (!r.ok()) return Fail(r.status());
    if (n_parts > 0 && parts == nullptr) {
      return Fail(OXINFER_INVALID_ARGUMENT, "oxinfer_session_add_message: parts is NULL");
    }
    oxinfer::engine::Message m;
    m.role = *r;
    if (n_parts > 1) m.content_form = oxinfer::engine::Message::ContentForm::kParts;
    for (size_t i = 0; i < n_parts; ++i) {
      const oxinfer_content_part& p = parts[i];
      if (p.struct_size < offsetof(oxinfer_content_part, size) + sizeof(p.size)) {
        return Fail(OXINFER_INVALID_ARGUMENT, absl::StrCat("parts[", i, "].struct_size too small"));
      }
      switch (p.type) {
        case OXINFER_PART_TEXT:
          if (p.text == nullptr) {
            return Fail(OXINFER_INVALID_ARGUMENT, absl::StrCat("parts[", i, "]: text is NULL"));
          }
          m.content.push_back({oxinfer::engine::ContentPart::Type::kText, p.text});
          break;
        case OXINFER_PART_IMAGE:
        case OXINFER_PART_AUDIO: {
          const bool image = p.type == OXINFER_PART_IMAGE;
          if (p.data == nullptr || p.size == 0) {
            return Fail(OXINFER_INVALID_ARGUMENT,
                        absl::StrCat("parts[", i, "]: ", image ? "image" : "audio",
                                     " data is NULL or empty"));
          }
          auto part = oxinfer::engine::DecodeMediaPart(
              session->owner->engine->registry(),
              image ? oxinfer::engine::ContentPart::Type::kImage
                    : oxinfer::engine::ContentPart::Type::kAudio,
              absl::string_view(static_cast<const char*>(p.data), p.size),
              absl::StrCat("parts[", i, "]"));
          if (!part.ok()) return Fail(part.status());  // the message is not added
          m.content.push_back(*std::move(part));
          break;
        }
        default:
          return Fail(OXINFER_INVALID_ARGUMENT,
                      absl::StrCat("parts[", i, "]: unknown part type ", static_cast<int>(p.type)));
      }
    }
    session->session->AddMessage(std::move(m));
    return OXINFER_OK;
  });
}

oxinfer_status oxinfer_session_add_text(oxinfer_session* session, oxinfer_role role,
                                        const char* text) {
  if (text == nullptr)
    return Fail(OXINFER_INVALID_ARGUMENT, "oxinfer_session_add_text: text is NULL");
  oxinfer_content_part part = {};
  part.struct_size = sizeof part;
  part.type = OXINFER_PART_TEXT;
  part.text = text;
  return oxinfer_session_add_message(session, role, &part, 1);
}

oxinfer_status oxinfer_session_add_tool_result(oxinfer_session* session, const char* call_id,
                                               const char* name, const char* result) {
  return Guard([&] {
    SessionCall call(session);
    if (oxinfer_status st = call.Check("oxinfer_session_add_tool_result"); st != OXINFER_OK)
      return st;
    if (name == nullptr || *name == '\0' || result == nullptr) {
      return Fail(OXINFER_INVALID_ARGUMENT,
                  "oxinfer_session_add_tool_result: name and result are needed");
    }
    oxinfer::engine::ToolCall c;
    c.id = call_id != nullptr ? call_id : "";
    c.name = name;
    session->session->AddMessage(oxinfer::engine::Message::ToolResult(c, result));
    return OXINFER_OK;
  });
}

oxinfer_status oxinfer_session_set_messages_json(oxinfer_session* session, const char* json,
                                                 const char* source) {
  return Guard([&] {
    SessionCall call(session);
    if (oxinfer_status st = call.Check("oxinfer_session_set_messages_json"); st != OXINFER_OK)
      return st;
    if (json == nullptr) return Fail(OXINFER_INVALID_ARGUMENT, "messages JSON is NULL");
    // Media parts as data: URLs or local paths, decoded by the engine's codecs.
    auto messages = oxinfer::engine::ParseMessagesJson(
        json, source != nullptr ? source : "messages",
        oxinfer::engine::RegistryMediaLoader(session->owner->engine->registry(),
                                             /*allow_paths=*/true));
    if (!messages.ok()) return Fail(messages.status());
    session->session->SetMessages(*std::move(messages));
    return OXINFER_OK;
  });
}

oxinfer_status oxinfer_session_messages_json(oxinfer_session* session, char** out) {
  return Guard([&] {
    SessionCall call(session);
    if (oxinfer_status st = call.Check("oxinfer_session_messages_json"); st != OXINFER_OK)
      return st;
    if (out == nullptr) return Fail(OXINFER_INVALID_ARGUMENT, "out is NULL");
    auto json = oxinfer::engine::MessagesForTemplate(session->session->messages()).ToJson();
    if (!json.ok()) return Fail(json.status());
    *out = oxinfer::capi::Dup(*json);
    return OXINFER_OK;
  });
}

oxinfer_status oxinfer_session_clear(oxinfer_session* session) {
  return Guard([&] {
    SessionCall call(session);
    if (oxinfer_status st = call.Check("oxinfer_session_clear"); st != OXINFER_OK) return st;
    session->session->SetMessages({});
    return OXINFER_OK;
  });
}

oxinfer_status oxinfer_session_set_tools_json(oxinfer_session* session, const char* json) {
  return Guard([&] {
    SessionCall call(session);
    if (oxinfer_status st = call.Check("oxinfer_session_set_tools_json"); st != OXINFER_OK)
      return st;
    if (json == nullptr) {
      session->chat.tools = oxinfer::chat::Value::None();
      return OXINFER_OK;
    }
    auto tools = oxinfer::engine::ParseToolsJson(json, "tools");
    if (!tools.ok()) return Fail(tools.status());
    session->chat.tools = tools->array().empty() ? oxinfer::chat::Value::None() : *tools;
    return OXINFER_OK;
  });
}

oxinfer_status oxinfer_builtin_tools_json(char** out) {
  return Guard([&] {
    if (out == nullptr) return Fail(OXINFER_INVALID_ARGUMENT, "out is NULL");
    auto json = oxinfer::builtin_tools::Declarations().ToJson();
    if (!json.ok()) return Fail(json.status());
    *out = oxinfer::capi::Dup(*json);
    return OXINFER_OK;
  });
}

oxinfer_status oxinfer_builtin_tool_run(const char* name, const char* arguments_json, char** out) {
  return Guard([&] {
    if (name == nullptr || out == nullptr) return Fail(OXINFER_INVALID_ARGUMENT, "NULL argument");
    const std::string n = name;
    if (n != "calculate" && n != "get_current_datetime") {
      return Fail(OXINFER_NOT_FOUND, absl::StrCat("no built-in tool named '", n,
                                                  "' (calculate, get_current_datetime)"));
    }
    oxinfer::engine::ToolCall call;
    call.name = n;
    if (arguments_json != nullptr && *arguments_json != '\0') {
      auto args = oxinfer::engine::ParseArgumentsJson(arguments_json);
      if (!args.ok()) return Fail(args.status());
      call.arguments = *std::move(args);
    }
    *out = oxinfer::capi::Dup(oxinfer::builtin_tools::Run(call));
    return OXINFER_OK;
  });
}

oxinfer_status oxinfer_session_render_prompt(oxinfer_session* session,
                                             const oxinfer_generate_options* options, char** out) {
  return Guard([&] {
    SessionCall call(session);
    if (oxinfer_status st = call.Check("oxinfer_session_render_prompt"); st != OXINFER_OK)
      return st;
    if (out == nullptr) return Fail(OXINFER_INVALID_ARGUMENT, "out is NULL");
    auto g = oxinfer::capi::GenerationOf(session, options);
    if (!g.ok()) return Fail(g.status());
    auto prompt = session->session->ChatPrompt(g->chat);
    if (!prompt.ok()) return Fail(prompt.status());
    *out = oxinfer::capi::Dup(prompt->text);
    return OXINFER_OK;
  });
}

oxinfer_status oxinfer_session_generate(oxinfer_session* session,
                                        const oxinfer_generate_options* options,
                                        oxinfer_event_fn on_event, void* user_data,
                                        oxinfer_reply** reply_out) {
  return Guard([&] {
    if (reply_out != nullptr) *reply_out = nullptr;
    SessionCall call(session);
    if (oxinfer_status st = call.Check("oxinfer_session_generate"); st != OXINFER_OK) return st;
    auto g = oxinfer::capi::GenerationOf(session, options);
    if (!g.ok()) return Fail(g.status());
    oxinfer::engine::Session& s = *session->session;
    auto forward = [&](const oxinfer::engine::StreamEvent& e) {
      if (on_event == nullptr) return;
      oxinfer_event ev = {};
      ev.struct_size = sizeof ev;
      std::string args;
      if (e.tool_call != nullptr) {
        args = e.tool_call->ArgumentsJson();
        ev.type = OXINFER_EVENT_TOOL_CALL;
        ev.tool_call_id = e.tool_call->id.c_str();
        ev.tool_name = e.tool_call->name.c_str();
        ev.tool_arguments_json = args.c_str();
      } else {
        if (e.text.empty()) return;  // a channel switch only
        ev.type = e.channel == oxinfer::engine::Channel::kReasoning ? OXINFER_EVENT_REASONING
                                                                    : OXINFER_EVENT_TEXT;
        ev.text = e.text.data();
        ev.text_size = e.text.size();
      }
      if (on_event(user_data, &ev) != 0) s.Cancel();
    };
    auto reply = s.Respond(g->chat, g->options, forward);
    if (!reply.ok()) return Fail(reply.status());
    if (reply_out != nullptr) *reply_out = oxinfer::capi::ReplyOf(*reply);
    return OXINFER_OK;
  });
}

void oxinfer_reply_free(oxinfer_reply* reply) {
  if (reply == nullptr) return;
  std::free(reply->content);
  std::free(reply->reasoning);
  for (size_t i = 0; i < reply->n_tool_calls; ++i) {
    std::free(reply->tool_calls[i].id);
    std::free(reply->tool_calls[i].name);
    std::free(reply->tool_calls[i].arguments_json);
  }
  std::free(reply->tool_calls);
  std::free(reply);
}

}  // extern "C"
