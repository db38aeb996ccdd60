#include "core/engine/chat_prompt.h"

#include <dirent.h>

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/engine/plain_special_tokens.h"
#include "core/gguf/gguf_checkpoint.h"
#include "core/gguf/gguf_folder.h"

namespace oxinfer::engine {

absl::StatusOr<Prompt> RenderChatPrompt(const CheckpointText& text, const ModelInfo& info,
                                        const std::vector<Message>& messages,
                                        const ChatOptions& options) {
  if (text.chat_template == nullptr) return text.chat_template_error;
  const bool has_tools = options.tools.is_array() && !options.tools.array().empty();
  std::vector<Message> bracketed;
  if (options.plain_special_tokens) {
    absl::StatusOr<std::vector<Message>> b = BracketSpecialTokens(*text.tokenizer, messages);
    if (!b.ok()) return b.status();
    bracketed = *std::move(b);
  }
  auto rendered = text.chat_template->Render(
      MessagesForTemplate(options.plain_special_tokens ? bracketed : messages),
      has_tools ? options.tools : chat::Value::None(), options.add_generation_prompt,
      options.template_kwargs);
  if (!rendered.ok()) {
    return absl::Status(rendered.status().code(),
                        absl::StrCat("chat template: ", rendered.status().message()));
  }
  tokenizer::Tokenizer::EncodeOptions encode;
  encode.add_special_tokens = false;
  if (options.plain_special_tokens) {
    absl::StatusOr<UnbracketedText> plain = RemoveBrackets(*rendered);
    if (!plain.ok()) return plain.status();
    *rendered = std::move(plain->text);
    encode.plain = std::move(plain->plain);
  }
  Prompt p;
  p.tokens = text.tokenizer->Encode(*rendered, encode);
  p.opens_reasoning = OpensReasoning(*rendered, info);
  p.text = *std::move(rendered);
  if (has_tools) {
    p.tools = options.tools;
    p.tool_format = text.tool_format;
  }
  return p;
}

bool OpensReasoning(absl::string_view text, const ModelInfo& info) {
  if (!info.reasons()) return false;
  const size_t start = text.rfind(info.reasoning_start);
  if (start == absl::string_view::npos) return false;
  const size_t end = text.rfind(info.reasoning_end);
  return end == absl::string_view::npos || end < start;
}

absl::StatusOr<std::unique_ptr<CheckpointText>> LoadPromptOnlyText(const std::string& model_dir) {
  if (gguf::IsGgufFile(model_dir)) {
    // Read from the staged folder, which goes when the text is in memory.
    auto staged = gguf::StagedGguf::Create(model_dir);
    if (!staged.ok()) return staged.status();
    return LoadCheckpointText((*staged)->dir(), ModelInfo{});
  }
  return LoadCheckpointText(model_dir, ModelInfo{});
}

bool HasWeights(const std::string& dir) {
  if (gguf::IsGgufFile(dir)) return true;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return false;
  bool found = false;
  while (const dirent* e = readdir(d)) {
    if (absl::EndsWith(e->d_name, ".safetensors")) {
      found = true;
      break;
    }
  }
  closedir(d);
  return found;
}

}  // namespace oxinfer::engine
