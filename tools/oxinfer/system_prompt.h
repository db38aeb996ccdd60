// The CLI's default system prompt: its own policy (the engine adds none).
#ifndef OXINFER_TOOLS_OXINFER_SYSTEM_PROMPT_H_
#define OXINFER_TOOLS_OXINFER_SYSTEM_PROMPT_H_

#include <string>

namespace oxinfer {

// The model runs locally, with the local date, time and zone.
std::string DefaultSystemPrompt();

}  // namespace oxinfer

#endif  // OXINFER_TOOLS_OXINFER_SYSTEM_PROMPT_H_
