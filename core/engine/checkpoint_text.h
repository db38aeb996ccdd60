// The text side of a language-model checkpoint, read from its folder with the
// model plugin's info as the fallback: the tokenizer (tokenizer.json), the
// chat template (the checkpoint's own, else the plugin's default), and the
// tokens that end a reply (generation_config.json, else the plugin's).
#ifndef OXINFER_CORE_ENGINE_CHECKPOINT_TEXT_H_
#define OXINFER_CORE_ENGINE_CHECKPOINT_TEXT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/chat/chat_template.h"
#include "core/engine/model_info.h"
#include "core/engine/tool_call.h"
#include "core/tokenizer/tokenizer.h"

namespace oxinfer::engine {

struct CheckpointText {
  std::unique_ptr<tokenizer::Tokenizer> tokenizer;
  // Null when the checkpoint has none and the plugin offers no default;
  // chat_template_error then says so (raw prompts still work).
  std::unique_ptr<chat::ChatTemplate> chat_template;
  absl::Status chat_template_error;
  std::vector<int32_t> stop_tokens;  // sorted, unique
  // How the template writes tool calls, so how replies are parsed for them.
  ToolCallFormat tool_format = ToolCallFormat::kNone;
};

// Errors name the file: a missing or broken tokenizer.json, a malformed
// generation_config.json. A broken chat template is not an error here; it is
// kept in chat_template_error for chat use. A zero info.vocab_size (a folder
// read for its prompts alone, without a model) leaves stop tokens unchecked.
absl::StatusOr<std::unique_ptr<CheckpointText>> LoadCheckpointText(const std::string& model_dir,
                                                                   const ModelInfo& info);

}  // namespace oxinfer::engine

#endif  // OXINFER_CORE_ENGINE_CHECKPOINT_TEXT_H_
