// Text generation for the CLI: prompt formatting (chat template or raw),
// tokenisation, prefill, sampling, streaming to stdout, stop tokens, speed
// figures, and the interactive --chat loop.
#ifndef OXINFER_TOOLS_OXINFER_TEXT_GENERATION_H_
#define OXINFER_TOOLS_OXINFER_TEXT_GENERATION_H_

#include <string>

#include "absl/status/status.h"
#include "core/backend_profiler.h"
#include "core/model_instance.h"
#include "core/sampling/sampler.h"

namespace oxinfer {

struct TextOptions {
  std::string prompt;
  std::string system;  // empty: the default system prompt
  bool no_system = false;
  bool think = false;
  bool raw = false;
  bool print_prompt = false;
  bool chat = false;
  bool show_tokens = false;
  int max_tokens = 512;
  std::string dump_logits;  // file for the last prompt token's logits (f32 LE)
  sampling::SamplingParams sampling;
};

// The default system prompt: the model runs locally, with the local date,
// time and zone.
std::string DefaultSystemPrompt();

// Runs one prompt, or the --chat loop, on an opened model. `profiler` (may be
// null) is reported after each reply.
absl::Status RunTextGeneration(ModelInstance& model, const std::string& model_dir,
                               const TextOptions& options, BackendProfiler* profiler);

}  // namespace oxinfer

#endif  // OXINFER_TOOLS_OXINFER_TEXT_GENERATION_H_
