// Gemma 4's assistant drafter (transformers' Gemma4AssistantForCausalLM, run
// the way Gemma4AssistantCandidateGenerator runs it), loaded beside the main
// model from its own folder (open_params.draft_dir).
//
// For a main sequence of p positions whose next token is t, each draft step:
//   x = pre_projection([main.embed(t) * sqrt(H_main) | h])
//   per layer (all KV-shared): q from x at position p (the assistant's RoPE)
//     attends the main model's K/V of positions [0, p) of the main layer that
//     stores its type (AssistantKvSource); sliding layers see the last
//     sliding_window + 1 of them (transformers' flipped bidirectional window);
//     then the MLP, as a Gemma 4 layer
//   n = norm(x); h' = post_projection(n); logits from n (below)
//   t = argmax(logits), h = h'
// where the first h is the main model's final-norm hidden state of position
// p - 1. Every step uses position p and the same K/V. With
// use_ordered_embeddings the logits are the masked head's: the top
// centroid_intermediate_top_k centroids' tokens (token_ordering) get n . e_tok
// of the assistant's tied embeddings, every other token (min of those) - 1.
#ifndef OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_ASSISTANT_H_
#define OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_ASSISTANT_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "oxinfer/sdk/compute.hpp"
#include "oxinfer/sdk/model_plugin.hpp"
#include "oxinfer/sdk/status.hpp"
#include "plugins/models/gemma4/gemma4_assistant_config.h"
#include "plugins/models/gemma4/gemma4_config.h"
#include "plugins/models/gemma4/gemma4_sequences.h"
#include "plugins/models/gemma4/gemma4_weights.h"

namespace oxinfer {
namespace gemma4 {

class Assistant {
 public:
  // The checkpoint in main_params.draft_dir, as main_params asks (weight
  // type, mmap), for the main model of config `main`.
  static sdk::StatusOr<std::unique_ptr<Assistant>> Load(const sdk::Compute& cx,
                                                        const sdk::OpenParams& main_params,
                                                        const Gemma4Config& main);

  // Greedy drafts for a main sequence of `store` (its hidden state of the
  // last position kept); the sequence is not changed.
  sdk::Status Draft(const sdk::DraftRequest& r, const SequenceStore& store,
                    const Gemma4Weights& main_w);

  // Positions behind a query the sliding layers read (the main model's
  // rings must keep them through a truncation).
  int64_t behind() const { return cfg_.text.sliding_window + 1; }
  const AssistantConfig& config() const { return cfg_; }

 private:
  explicit Assistant(const sdk::Compute& cx) : cx_(cx), scratch_(&cx) {}
  // One step: x (the pre-projected input, [1][hidden]) through the layers;
  // writes the projected hidden state and returns the drafted token.
  sdk::StatusOr<int32_t> Step(const sdk::Tensor& x, const Sequence& s, int64_t p, float* hidden,
                              float* logits);
  sdk::StatusOr<int32_t> Head(const sdk::Tensor& n, float* logits);

  const sdk::Compute& cx_;
  AssistantConfig cfg_;
  Gemma4Weights w_;  // the decoder (every layer KV-shared) and its tied embeddings
  sdk::OwnedTensor pre_projection_, post_projection_, centroids_;
  std::vector<int32_t> ordering_;  // token_ordering: [centroid][tokens per centroid]
  std::vector<int> source_;        // per layer: the main model's layer whose K/V it reads
  sdk::Scratch scratch_;
};

}  // namespace gemma4
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_ASSISTANT_H_
