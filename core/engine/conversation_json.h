// Conversations and tool declarations as JSON files (OpenAI's chat format),
// for hosts that take them from users: the CLI's --messages / --tools-file,
// the C API, the server.
//
//   [{"role": "system", "content": "..."},
//    {"role": "user", "content": [{"type": "text", "text": "..."}]},
//    {"role": "assistant", "content": null, "tool_calls": [{"id": "c1",
//      "type": "function", "function": {"name": "f", "arguments": "{\"a\": 1}"}}]},
//    {"role": "tool", "tool_call_id": "c1", "content": "..."}]
//
// Image and audio parts (media_reference.h) are read by `load_media`; without
// one they are refused.
//
// function.arguments (a JSON string, or an object) becomes an object keeping
// its key order; every other key (tool_call_id, name, ...) goes to the
// template unchanged. Errors name `source` (the file) and the entry.
#ifndef OXINFER_CORE_ENGINE_CONVERSATION_JSON_H_
#define OXINFER_CORE_ENGINE_CONVERSATION_JSON_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/chat/value.h"
#include "core/engine/media_reference.h"
#include "core/engine/message.h"

namespace oxinfer::engine {

absl::StatusOr<std::vector<Message>> ParseMessagesJson(absl::string_view json,
                                                       absl::string_view source,
                                                       const MediaLoader& load_media = nullptr);
absl::StatusOr<std::vector<Message>> MessagesFromValue(const chat::Value& list,
                                                       absl::string_view source,
                                                       const MediaLoader& load_media = nullptr);

// A list of {"type": "function", "function": {"name", "description",
// "parameters"}}, returned as the value templates get as `tools`.
absl::StatusOr<chat::Value> ParseToolsJson(absl::string_view json, absl::string_view source);
absl::Status CheckTools(const chat::Value& tools, absl::string_view source);

// Reads a file of at most 64 MiB (errors name it).
absl::StatusOr<std::string> ReadConversationFile(const std::string& path);

}  // namespace oxinfer::engine

#endif  // OXINFER_CORE_ENGINE_CONVERSATION_JSON_H_
