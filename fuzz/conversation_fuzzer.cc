// libFuzzer entry points for what users hand the CLI and the C API: messages
// and tools files (parsed, then turned into the template's values and written
// back as JSON; an error must say which file) and calculator expressions
// (bounded: the result is never longer than the bounds allow). Violations trap.
#include "fuzz/conversation_fuzzer.h"

#include <string>

#include "absl/strings/match.h"
#include "core/builtin_tools/calculator.h"
#include "core/engine/conversation_json.h"

namespace oxinfer {
namespace {

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

}  // namespace

absl::Status ParseConversationFuzzInput(const uint8_t* data, size_t size) {
  if (size == 0) return absl::InvalidArgumentError("empty");
  const absl::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 0) {
    // Media references are parsed for real; nothing is read or decoded.
    const engine::MediaLoader placeholder =
        [](const engine::MediaReference& ref,
           const std::string& name) -> absl::StatusOr<engine::ContentPart> {
      Check(ref.source == engine::MediaReference::Source::kPath || !ref.data.empty());
      Check(absl::StartsWith(name, "fuzz.json: "));
      engine::ContentPart part;
      part.type = ref.type;
      return part;
    };
    auto messages = engine::ParseMessagesJson(text, "fuzz.json", placeholder);
    if (!messages.ok()) {
      Check(absl::StartsWith(messages.status().message(), "fuzz.json: "));
      return messages.status();
    }
    const chat::Value v = engine::MessagesForTemplate(*messages);
    Check(v.is_array() && v.array().size() == messages->size());
    Check(v.ToJson().ok());
    return absl::OkStatus();
  }
  auto tools = engine::ParseToolsJson(text, "fuzz.json");
  if (!tools.ok()) {
    Check(absl::StartsWith(tools.status().message(), "fuzz.json: "));
    return tools.status();
  }
  Check(tools->is_array());
  return absl::OkStatus();
}

absl::Status CalculateFuzzInput(const uint8_t* data, size_t size) {
  auto result =
      builtin_tools::Calculate(absl::string_view(reinterpret_cast<const char*>(data), size));
  if (!result.ok()) return result.status();
  // Numerator and denominator hold at most kMaxValueBits together (under a
  // third of a digit per bit), and a fraction's approximation repeats at most
  // the numerator's digits, plus 20 decimals.
  Check(!result->empty() && result->size() < 2 * (builtin_tools::kMaxValueBits / 3) + 64);
  return absl::OkStatus();
}

}  // namespace oxinfer
