#include "tools/server/text_request.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/engine/conversation_json.h"
#include "core/json_util.h"

namespace oxinfer::server {
namespace {

using chat::Value;

// Most stop sequences a request may give (OpenAI allows 4).
constexpr size_t kMaxStopStrings = 16;
constexpr size_t kMaxStopBytes = 1024;

class Fields {
 public:
  Fields(const Value& body, ApiError* error) : body_(body), error_(error) {}

  const Value* Get(absl::string_view name) const {
    const Value* v = body_.object().Find(name);
    return v == nullptr || v->is_none() ? nullptr : v;  // null means "not given"
  }

  ApiError* error() { return error_; }

  bool Fail(absl::string_view param, absl::string_view message) {
    *error_ = BadRequest(std::string(param), absl::StrCat("'", param, "': ", message));
    return false;
  }

  bool Bool(absl::string_view name, bool* out) {
    const Value* v = Get(name);
    if (v == nullptr) return true;
    if (!v->is_bool()) return Fail(name, "must be a boolean");
    *out = v->as_bool();
    return true;
  }

  bool Number(absl::string_view name, double lo, double hi, double* out, bool* given = nullptr) {
    const Value* v = Get(name);
    if (v == nullptr) return true;
    if (v->is_bool() || !(v->is_int() || v->is_float())) return Fail(name, "must be a number");
    const double d = v->as_double();
    if (!std::isfinite(d) || d < lo || d > hi) {
      return Fail(name, absl::StrFormat("%g is outside [%g, %g]", d, lo, hi));
    }
    *out = d;
    if (given != nullptr) *given = true;
    return true;
  }

  bool Integer(absl::string_view name, int64_t lo, int64_t hi, int64_t* out,
               bool* given = nullptr) {
    const Value* v = Get(name);
    if (v == nullptr) return true;
    if (!v->is_int() && !(v->is_float() && std::floor(v->as_float()) == v->as_float())) {
      return Fail(name, "must be an integer");
    }
    if (v->is_float() && std::fabs(v->as_float()) > 9e18) return Fail(name, "is out of range");
    const int64_t i = v->is_int() ? v->as_int() : static_cast<int64_t>(v->as_float());
    if (i < lo || i > hi) return Fail(name, absl::StrFormat("%d is outside [%d, %d]", i, lo, hi));
    *out = i;
    if (given != nullptr) *given = true;
    return true;
  }

  // A field the server cannot honour unless it has its neutral value.
  bool OnlyNeutral(absl::string_view name, const Value& neutral, absl::string_view why) {
    const Value* v = Get(name);
    if (v == nullptr) return true;
    const bool same = (neutral.is_bool() && v->is_bool() && v->as_bool() == neutral.as_bool()) ||
                      (neutral.is_int() && (v->is_int() || v->is_float()) && !v->is_bool() &&
                       v->as_double() == neutral.as_double());
    if (!same) return Fail(name, why);
    return true;
  }

 private:
  const Value& body_;
  ApiError* error_;
};

bool ParseStop(Fields& f, const Value* stop, std::vector<std::string>* out) {
  if (stop == nullptr) return true;
  std::vector<Value> items;
  if (stop->is_string()) {
    items.push_back(*stop);
  } else if (stop->is_array()) {
    items = stop->array();
  } else {
    return f.Fail("stop", "must be a string or a list of strings");
  }
  if (items.size() > kMaxStopStrings) {
    return f.Fail("stop", absl::StrFormat("at most %d sequences", kMaxStopStrings));
  }
  for (const Value& s : items) {
    if (!s.is_string()) return f.Fail("stop", "must be a string or a list of strings");
    if (s.as_string().empty()) return f.Fail("stop", "a stop sequence is empty");
    if (s.as_string().size() > kMaxStopBytes) {
      return f.Fail("stop",
                    absl::StrFormat("a stop sequence is longer than %d bytes", kMaxStopBytes));
    }
    out->push_back(s.as_string());
  }
  return true;
}

bool ParseTools(Fields& f, TextRequest* r) {
  const Value* tools = f.Get("tools");
  std::string choice = "auto";
  if (const Value* c = f.Get("tool_choice"); c != nullptr) {
    if (!c->is_string()) {
      return f.Fail("tool_choice",
                    "only \"auto\" and \"none\" are supported (the server cannot force a call)");
    }
    choice = c->as_string();
    if (choice == "required") {
      return f.Fail("tool_choice",
                    "\"required\" is not supported (the server cannot force a call)");
    }
    if (choice != "auto" && choice != "none") {
      return f.Fail("tool_choice", "must be \"auto\" or \"none\"");
    }
  }
  if (tools == nullptr) return true;
  if (absl::Status s = engine::CheckTools(*tools, "tools"); !s.ok()) {
    *f.error() = BadRequest("tools", std::string(s.message()));
    return false;
  }
  // "none": the model is not told about the tools, so it cannot call them.
  if (choice != "none" && !tools->array().empty()) r->tools = *tools;
  return true;
}

bool ParsePrompt(Fields& f, TextRequest* r) {
  const Value* p = f.Get("prompt");
  if (p == nullptr) return f.Fail("prompt", "is required");
  if (p->is_array() && p->array().size() == 1 && p->array()[0].is_string()) {
    r->prompt = p->array()[0].as_string();
    return true;
  }
  if (!p->is_string()) {
    return f.Fail("prompt", "must be a string (or a list of one string)");
  }
  r->prompt = p->as_string();
  return true;
}

}  // namespace

bool ParseTextRequest(absl::string_view body, bool chat, TextRequest* r, ApiError* error,
                      const engine::MediaLoader& load_media) {
  if (absl::StatusOr<nlohmann::json> strict =
          ParseJsonStrict(std::string_view(body.data(), body.size()));
      !strict.ok()) {
    *error =
        BadRequest("", absl::StrCat("the body is not valid JSON: ", strict.status().message()));
    return false;
  }
  absl::StatusOr<Value> parsed = Value::FromJson(body);
  if (!parsed.ok()) {
    *error =
        BadRequest("", absl::StrCat("the body is not valid JSON: ", parsed.status().message()));
    return false;
  }
  if (!parsed->is_dict()) {
    *error = BadRequest("", "the body must be a JSON object");
    return false;
  }
  r->chat = chat;
  Fields f(*parsed, error);

  if (const Value* m = f.Get("model"); m != nullptr) {
    if (!m->is_string()) return f.Fail("model", "must be a string");
    r->model = m->as_string();
  }
  if (chat) {
    const Value* messages = f.Get("messages");
    if (messages == nullptr) return f.Fail("messages", "is required");
    if (!messages->is_array()) return f.Fail("messages", "must be a list of messages");
    if (messages->array().empty()) return f.Fail("messages", "must not be empty");
    auto parsed_messages = engine::MessagesFromValue(*messages, "messages", load_media);
    if (!parsed_messages.ok()) {
      *error = BadRequest("messages", std::string(parsed_messages.status().message()));
      return false;
    }
    if (absl::Status s = engine::CheckMessagesUtf8(*parsed_messages); !s.ok()) {
      *error = BadRequest("messages", std::string(s.message()));
      return false;
    }
    r->messages = *std::move(parsed_messages);
    if (!ParseTools(f, r)) return false;
    r->template_kwargs.object().Set("enable_thinking", Value(false));
    if (const Value* kw = f.Get("chat_template_kwargs"); kw != nullptr) {
      if (!kw->is_dict()) return f.Fail("chat_template_kwargs", "must be an object");
      for (const auto& [key, value] : kw->object().items())
        r->template_kwargs.object().Set(key, value);
    }
  } else {
    if (!ParsePrompt(f, r)) return false;
    if (!f.OnlyNeutral("echo", Value(false), "echo is not supported")) return false;
    if (f.Get("suffix") != nullptr) return f.Fail("suffix", "is not supported");
    if (!f.OnlyNeutral("best_of", Value(1), "only 1 is supported")) return false;
    if (f.Get("logprobs") != nullptr) return f.Fail("logprobs", "is not supported");
  }

  double temperature = 1.0, top_p = 1.0, min_p = 0.0, repetition_penalty = 1.0;
  int64_t top_k = 0, seed = 0;
  if (!f.Number("temperature", 0.0, 2.0, &temperature)) return false;
  if (!f.Number("top_p", 0.0, 1.0, &top_p)) return false;
  if (top_p == 0.0) return f.Fail("top_p", "must be greater than 0");
  if (!f.Integer("top_k", 0, INT32_MAX, &top_k)) return false;
  if (!f.Number("min_p", 0.0, 1.0, &min_p)) return false;
  if (!f.Number("repetition_penalty", 1e-3, 100.0, &repetition_penalty)) return false;
  if (!f.Integer("seed", INT64_MIN, INT64_MAX, &seed, &r->seed_given)) return false;
  r->sampling.temperature = static_cast<float>(temperature);
  r->sampling.top_p = static_cast<float>(top_p);
  r->sampling.top_k = static_cast<int>(top_k);
  r->sampling.min_p = static_cast<float>(min_p);
  r->sampling.repetition_penalty = static_cast<float>(repetition_penalty);
  r->sampling.seed = static_cast<uint64_t>(seed);

  int64_t max_tokens = -1;
  bool given = false;
  if (!f.Integer("max_tokens", 1, INT32_MAX, &max_tokens, &given)) return false;
  if (chat && !f.Integer("max_completion_tokens", 1, INT32_MAX, &max_tokens, &given)) return false;
  r->max_tokens = given ? max_tokens : -1;

  if (!ParseStop(f, f.Get("stop"), &r->stop)) return false;
  if (!f.Bool("stream", &r->stream)) return false;
  if (const Value* so = f.Get("stream_options"); so != nullptr) {
    if (!so->is_dict()) return f.Fail("stream_options", "must be an object");
    if (!r->stream) return f.Fail("stream_options", "is only allowed when 'stream' is true");
    if (const Value* u = so->object().Find("include_usage"); u != nullptr && !u->is_none()) {
      if (!u->is_bool()) return f.Fail("stream_options.include_usage", "must be a boolean");
      r->include_usage = u->as_bool();
    }
  }

  if (!f.OnlyNeutral("n", Value(1), "only 1 is supported")) return false;
  if (!f.OnlyNeutral("frequency_penalty", Value(0), "only 0 is supported (use repetition_penalty)"))
    return false;
  if (!f.OnlyNeutral("presence_penalty", Value(0), "only 0 is supported (use repetition_penalty)"))
    return false;
  if (chat) {
    if (!f.OnlyNeutral("logprobs", Value(false), "is not supported")) return false;
    if (f.Get("top_logprobs") != nullptr) return f.Fail("top_logprobs", "is not supported");
    if (const Value* rf = f.Get("response_format"); rf != nullptr) {
      const Value* type = rf->is_dict() ? rf->object().Find("type") : nullptr;
      if (type == nullptr || !type->is_string() || type->as_string() != "text") {
        return f.Fail("response_format", "only {\"type\": \"text\"} is supported");
      }
    }
  }
  if (const Value* lb = f.Get("logit_bias"); lb != nullptr) {
    if (!lb->is_dict() || lb->object().size() != 0) return f.Fail("logit_bias", "is not supported");
  }
  return true;
}

}  // namespace oxinfer::server
