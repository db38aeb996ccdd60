// The body of POST /v1/chat/completions and POST /v1/completions, checked
// field by field as the OpenAI API defines them, into what the engine takes.
// A refusal names the field (ApiError::param) and says what it must be.
// Fields the API defines that change what a reply means and the server
// cannot honour (n > 1, logprobs, penalties other than 0, a JSON response
// format, forced tool choice) are refused, never silently ignored; fields
// that only describe the caller (user, metadata, store, ...) are ignored.
#ifndef OXINFER_TOOLS_SERVER_TEXT_REQUEST_H_
#define OXINFER_TOOLS_SERVER_TEXT_REQUEST_H_

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/chat/value.h"
#include "core/engine/media_reference.h"
#include "core/engine/message.h"
#include "core/sampling/sampler.h"
#include "tools/server/api_error.h"

namespace oxinfer::server {

struct TextRequest {
  bool chat = true;  // /v1/chat/completions; false: /v1/completions
  std::string model;
  // Chat: the conversation, the declared tools (None for none) and the
  // template's variables (enable_thinking false unless the request sets it,
  // as the CLI does).
  std::vector<engine::Message> messages;
  chat::Value tools = chat::Value::None();
  chat::Value template_kwargs = chat::Value::Dict();
  // Completions: the prompt, fed as it is (no template).
  std::string prompt;

  sampling::SamplingParams sampling;
  bool seed_given = false;
  int64_t max_tokens = -1;  // -1: until a stop or the end of the context
  std::vector<std::string> stop;
  bool stream = false;
  bool include_usage = false;  // stream_options.include_usage
};

// Parses `body`; on failure returns false with *error set. Image and audio
// parts of messages go to `load_media` (base64 data: URLs: a server does not
// read its own files for clients); without one they are refused.
bool ParseTextRequest(absl::string_view body, bool chat, TextRequest* request, ApiError* error,
                      const engine::MediaLoader& load_media = nullptr);

}  // namespace oxinfer::server

#endif  // OXINFER_TOOLS_SERVER_TEXT_REQUEST_H_
