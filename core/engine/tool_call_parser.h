// Tool calls out of a reply's streamed text. Text reaches the host as soon
// as it cannot be the start of a call; a call is reported once its closing
// marker arrives and its body parses. However the text is split into pieces
// the result is the same, and a malformed or unterminated call is text.
#ifndef OXINFER_CORE_ENGINE_TOOL_CALL_PARSER_H_
#define OXINFER_CORE_ENGINE_TOOL_CALL_PARSER_H_

#include <functional>
#include <string>

#include "absl/strings/string_view.h"
#include "core/chat/value.h"
#include "core/engine/tool_call.h"
#include "core/engine/tool_call_body.h"

namespace oxinfer::engine {

class ToolCallParser {
 public:
  using OnText = std::function<void(absl::string_view)>;
  using OnCall = std::function<void(ToolCall)>;

  // A call's body longer than this is given up on (as text).
  static constexpr size_t kMaxCallBytes = 1 << 20;

  // `tools` is the declaration list the template saw (it types Qwen's
  // parameters). kNone passes all text through.
  ToolCallParser(ToolCallFormat format, chat::Value tools);

  void Feed(absl::string_view text, const OnText& on_text, const OnCall& on_call);
  // The end of the reply: what was held back, as text.
  void Flush(const OnText& on_text);

 private:
  // The position of the close marker in body_ outside quoted strings, or npos.
  size_t FindClose() const;
  void EndCall(size_t close, const OnText& on_text, const OnCall& on_call);

  const ToolCallFormat format_;
  const chat::Value tools_;
  const ToolCallMarkers markers_;
  bool in_call_ = false;
  std::string pending_;  // text that may start a call (outside one)
  std::string body_;     // after an open marker
};

}  // namespace oxinfer::engine

#endif  // OXINFER_CORE_ENGINE_TOOL_CALL_PARSER_H_
