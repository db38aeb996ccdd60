// Qwen 3.5's multi-token-prediction head (the checkpoint's mtp.* tensors)
// drafting the next tokens of a sequence from the main model's hidden state
// (self-speculation). transformers does not run it; the computation follows
// vLLM's Qwen3_5MultiTokenPredictor.forward (qwen3_5_mtp.py):
//   x = fc([pre_fc_norm_embedding(embed(token[p+1])) | pre_fc_norm_hidden(h[p])])
//   x = one full-attention decoder layer at position p (its own KV cache)
//   h'[p] = norm(x); logits = lm_head(h'[p]) (the main model's head)
// where h[p] is the main model's final-norm hidden state at position p. The
// first draft reads the main model's h; each further one the head's own h'.
#ifndef OXINFER_PLUGINS_MODELS_QWEN35_QWEN35_MTP_H_
#define OXINFER_PLUGINS_MODELS_QWEN35_QWEN35_MTP_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "oxinfer/sdk/compute.hpp"
#include "oxinfer/sdk/model_plugin.hpp"
#include "plugins/models/qwen35/qwen35_config.h"
#include "plugins/models/qwen35/qwen35_sequences.h"
#include "plugins/models/qwen35/qwen35_weights.h"

namespace oxinfer {
namespace qwen35 {

class MtpHead {
 public:
  MtpHead(const sdk::Compute* cx, const Qwen35Config& config, const Qwen35Weights* weights,
          int32_t max_sequences, int64_t context_length);

  // Keeps the main model's final-norm hidden states `hidden` ([n][hidden]
  // f32, host) of positions pos0... of seq, fed with `tokens` (null: 0s):
  // the head reads them at the next Draft.
  sdk::Status Keep(int32_t seq, int64_t pos0, int64_t n, const int32_t* tokens,
                   const float* hidden);
  // Drafts for a sequence of `length` positions (the main model's).
  sdk::Status Draft(const sdk::DraftRequest& request, int64_t length, sdk::Scratch* scratch);
  // Forgets what it holds of positions n_keep and later.
  void Truncate(int32_t seq, int64_t n_keep);
  void Clear(int32_t seq, bool release);
  sdk::Status Copy(int32_t src, int32_t dst);

 private:
  // Hidden states the head has not read yet, of consecutive positions.
  struct Pending {
    int64_t pos0 = 0;
    std::vector<int32_t> tokens;
    std::vector<float> hidden;  // [tokens][hidden]
  };
  // One step of the head over rows at positions pos0...: the output hidden
  // state and logits of the last row.
  sdk::Status Step(int32_t seq, int64_t pos0, const std::vector<int32_t>& ids, const float* hidden,
                   sdk::Scratch* scratch, std::vector<float>* h_out, std::vector<float>* logits);

  const sdk::Compute* cx_;
  Qwen35Config config_;     // the main model's
  Qwen35Config kv_config_;  // one full-attention layer: the head's cache
  const Qwen35Weights* w_;
  std::unique_ptr<Sequences> kv_;
  std::vector<Pending> pending_;
};

}  // namespace qwen35
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_QWEN35_QWEN35_MTP_H_
