// The CLI's text mode: one prompt, or the --chat loop, on a language model,
// with the replies streamed to stdout and the figures to stderr.
#ifndef OXINFER_TOOLS_OXINFER_TEXT_COMMAND_H_
#define OXINFER_TOOLS_OXINFER_TEXT_COMMAND_H_

#include <string>

#include "absl/status/status.h"
#include "core/engine/engine.h"
#include "core/sampling/sampler.h"

namespace oxinfer {

struct TextFlags {
  std::string prompt;
  std::string system;  // "": DefaultSystemPrompt()
  bool no_system = false;
  bool think = false;
  bool raw = false;
  bool print_prompt = false;
  bool chat = false;
  bool show_tokens = false;
  bool profile = false;
  int max_tokens = 512;
  std::string dump_logits;  // file for the last prompt token's logits (f32 LE)
  sampling::SamplingParams sampling;
};

absl::Status RunText(engine::Engine& engine, const TextFlags& flags);

}  // namespace oxinfer

#endif  // OXINFER_TOOLS_OXINFER_TEXT_COMMAND_H_
