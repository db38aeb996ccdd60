// A conversation rendered by the checkpoint's own chat template into the
// prompt a model reads, with or without the model loaded (the CLI's
// --print-prompt on a folder without weights).
#ifndef OXINFER_CORE_ENGINE_CHAT_PROMPT_H_
#define OXINFER_CORE_ENGINE_CHAT_PROMPT_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/chat/value.h"
#include "core/engine/checkpoint_text.h"
#include "core/engine/generation.h"
#include "core/engine/message.h"
#include "core/engine/model_info.h"

namespace oxinfer::engine {

struct ChatOptions {
  bool add_generation_prompt = true;
  // The tools declared to the model: a list of {"type": "function",
  // "function": {...}} (conversation_json.h); None for none. With tools,
  // replies are parsed for calls in the checkpoint's format.
  chat::Value tools = chat::Value::None();
  // Further template variables: {"enable_thinking": true}, ...
  chat::Value template_kwargs = chat::Value::Dict();
  // Soft tokens per image (0: the model's default; Gemma 4 takes 70, 140,
  // 280, 560 or 1120).
  int32_t max_soft_tokens = 0;
  // Session::ChatPrompt encodes attachments and expands their placeholders;
  // false leaves the placeholders (a prompt only printed).
  bool expand_media = true;
  // Special tokens spelled in the messages' text are plain text, not control
  // tokens (plain_special_tokens.h). Off: as transformers tokenises a
  // rendered prompt, they are control tokens (docs/limits.md, "Special tokens
  // in user text").
  bool plain_special_tokens = false;
};

// The messages through text.chat_template, tokenised as written (the
// template spells out the special tokens; with options.plain_special_tokens
// only the template's); attachments stay placeholders. FAILED_PRECONDITION
// when the checkpoint has no template.
absl::StatusOr<Prompt> RenderChatPrompt(const CheckpointText& text, const ModelInfo& info,
                                        const std::vector<Message>& messages,
                                        const ChatOptions& options);

// Whether `text` ends inside a reasoning block it opened (a generation
// prompt that starts the model thinking).
bool OpensReasoning(absl::string_view text, const ModelInfo& info);

// A checkpoint folder's text side alone (tokenizer.json, its template,
// generation_config.json), for rendering prompts without a model plugin.
absl::StatusOr<std::unique_ptr<CheckpointText>> LoadPromptOnlyText(const std::string& model_dir);

// Whether `dir` holds weights (a *.safetensors file).
bool HasWeights(const std::string& dir);

}  // namespace oxinfer::engine

#endif  // OXINFER_CORE_ENGINE_CHAT_PROMPT_H_
