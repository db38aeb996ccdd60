// libFuzzer entry point for the streamed tool-call parser: the text fed
// whole, in pieces whose sizes come from the input, and byte by byte must give
// the same text and calls; no input may lose or invent text outside calls
// (the text out never exceeds the text in), and every call has a name.
// Any violation traps.
#include "fuzz/tool_call_fuzzer.h"

#include <string>
#include <vector>

#include "core/engine/tool_call_parser.h"

namespace oxinfer {
namespace {

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

struct Out {
  std::string text;
  std::vector<std::string> calls;  // name + arguments JSON
};

Out Run(engine::ToolCallFormat format, const std::string& text, size_t seed) {
  const chat::Value tools = *chat::Value::FromJson(
      R"([{"type": "function", "function": {"name": "f", "parameters": {"type": "object",
          "properties": {"n": {"type": "integer"}, "s": {"type": "string"}}}}}])");
  engine::ToolCallParser parser(format, tools);
  Out out;
  auto on_text = [&](absl::string_view t) { out.text.append(t.data(), t.size()); };
  auto on_call = [&](engine::ToolCall c) {
    Check(!c.name.empty() && c.arguments.is_dict());
    out.calls.push_back(c.name + c.ArgumentsJson());
  };
  size_t i = 0;
  while (i < text.size()) {
    // Piece sizes: 1..16 bytes from the seed, or everything when seed is 0.
    const size_t n = seed == 0 ? text.size() : 1 + (seed * 2654435761u + i) % 16;
    parser.Feed(absl::string_view(text).substr(i, n), on_text, on_call);
    i += n;
  }
  parser.Flush(on_text);
  return out;
}

}  // namespace

absl::Status ParseToolCallsFuzzInput(const uint8_t* data, size_t size) {
  if (size == 0) return absl::InvalidArgumentError("empty");
  const engine::ToolCallFormat formats[] = {engine::ToolCallFormat::kGemma4,
                                            engine::ToolCallFormat::kQwenXml,
                                            engine::ToolCallFormat::kQwenJson};
  const engine::ToolCallFormat format = formats[data[0] % 3];
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const Out whole = Run(format, text, 0);
  Check(whole.text.size() <= text.size());
  for (size_t seed : {1u, 7u, 1000u}) {
    const Out pieces = Run(format, text, seed);
    Check(pieces.text == whole.text && pieces.calls == whole.calls);
  }
  return whole.calls.empty() ? absl::InvalidArgumentError("no call") : absl::OkStatus();
}

}  // namespace oxinfer

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)oxinfer::ParseToolCallsFuzzInput(data, size);
  return 0;
}
