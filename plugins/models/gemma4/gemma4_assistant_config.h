// The configuration of a Gemma 4 assistant (drafter) checkpoint: model_type
// gemma4_assistant (transformers' Gemma4AssistantConfig), a small Gemma 4
// text decoder whose layers all read the main model's K/V, between a
// pre_projection of [main embedding | main hidden state] and a
// post_projection back to the main model's width, with (use_ordered_embeddings)
// a centroid-masked LM head. Checked alone here and against the main model's
// config by CheckAssistantFits.
#ifndef OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_ASSISTANT_CONFIG_H_
#define OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_ASSISTANT_CONFIG_H_

#include <string_view>

#include "oxinfer/sdk/status.hpp"
#include "plugins/models/gemma4/gemma4_config.h"

namespace oxinfer {
namespace gemma4 {

struct AssistantConfig {
  Gemma4Config text;             // text_config; every layer KV-shared (kv_source -1)
  int backbone_hidden_size = 0;  // the main model's hidden size it was trained with
  bool use_ordered_embeddings = false;
  int num_centroids = 0;                // with use_ordered_embeddings
  int centroid_intermediate_top_k = 0;  // centroids whose tokens get logits
  int tokens_per_centroid() const { return text.vocab_size / num_centroids; }
};

// Parses a gemma4_assistant config.json (`path` names it in errors).
sdk::StatusOr<AssistantConfig> ParseGemma4AssistantConfig(std::string_view config_json,
                                                          std::string_view path);

// The main-model layer whose K/V assistant layers of this type read: the
// last layer of the type before the first KV-shared one (transformers' "store"
// layers); -1 when the main model has none.
int AssistantKvSource(const Gemma4Config& main, bool sliding);

// Whether the assistant can draft for `main`: the backbone width, the
// vocabulary, each layer's K/V geometry against its source layer, and a
// sliding window within the main model's.
sdk::Status CheckAssistantFits(const AssistantConfig& a, const Gemma4Config& main);

}  // namespace gemma4
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_ASSISTANT_CONFIG_H_
