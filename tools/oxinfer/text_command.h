// The CLI's text mode: one prompt, or the --chat loop, on a language model,
// with the replies streamed to stdout and the figures to stderr.
#ifndef OXINFER_TOOLS_OXINFER_TEXT_COMMAND_H_
#define OXINFER_TOOLS_OXINFER_TEXT_COMMAND_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/engine/engine.h"
#include "core/media/media.h"
#include "core/sampling/sampler.h"

namespace oxinfer {

struct TextFlags {
  std::string prompt;
  std::string system;  // "": DefaultSystemPrompt()
  bool no_system = false;
  bool think = false;
  bool raw = false;
  // Special tokens spelled in -p, --system, --chat lines or --messages are
  // plain text (--split-special-tokens).
  bool split_special_tokens = false;
  bool print_prompt = false;
  bool chat = false;
  bool show_tokens = false;
  bool profile = false;
  bool drafting = false;     // --draft: print acceptance with --profile
  bool show_drafts = false;  // --show-drafts
  int max_tokens = 512;
  std::string dump_logits;  // file for the last prompt token's logits (f32 LE)
  sampling::SamplingParams sampling;
  bool tools = false;         // declare and run the built-in tools
  std::string messages_file;  // the conversation so far (OpenAI-style JSON)
  std::string tools_file;     // further tool declarations (JSON list)
  // Attachments of the first user turn, before its text: images, then audio.
  std::vector<std::string> images, audios;
  int max_soft_tokens = 0;       // per image; 0: the model's default
  std::string dump_soft_tokens;  // file for the last prompt's soft tokens (f32 LE)
  media::DecodeOptions media_limits;
};

absl::Status RunText(engine::Engine& engine, const TextFlags& flags);

// --print-prompt for a folder without weights: its tokenizer and template
// alone render the prompt.
absl::Status PrintPromptWithoutModel(const std::string& model_dir, const TextFlags& flags);

}  // namespace oxinfer

#endif  // OXINFER_TOOLS_OXINFER_TEXT_COMMAND_H_
