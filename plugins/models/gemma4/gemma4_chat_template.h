// The chat template for Gemma 4 checkpoints that carry none (the E2B/E4B
// template of 2026-07-09, reduced to what the engine's Jinja subset renders):
// <|turn>role ... <turn|>, thinking switched on by <|think|> in the system
// turn, reasoning of the turns after the last user message replayed in a
// thought channel (<|channel>thought ... <channel|>).
#ifndef OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_CHAT_TEMPLATE_H_
#define OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_CHAT_TEMPLATE_H_

namespace oxinfer {
namespace gemma4 {

extern const char kGemma4ChatTemplate[];

}  // namespace gemma4
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_CHAT_TEMPLATE_H_
