// One batched step of the Gemma 4 text decoder (transformers'
// Gemma4TextModel + the tied LM head) through backend operations.
//
// A step takes a piece of each of several sequences. The rows of all pieces
// go through every matmul, norm and MLP together; attention runs per piece on
// its sequence's caches. From the first KV-shared layer on no layer writes a
// cache, so only the rows whose logits are wanted go on (transformers does the
// same with logits_to_keep).
//
// Positions fed by embedding rows (soft tokens: image or audio features)
// replace the scaled token embeddings; their per-layer inputs take the
// token-identity part of pad_token_id, as Gemma4Model.forward does for the
// multimodal positions (llm_input_ids = pad there), and the context part from
// the given row.
#ifndef OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_FORWARD_H_
#define OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_FORWARD_H_

#include <cstdint>
#include <vector>

#include "oxinfer/sdk/compute.hpp"
#include "oxinfer/sdk/status.hpp"
#include "plugins/models/gemma4/gemma4_config.h"
#include "plugins/models/gemma4/gemma4_sequences.h"
#include "plugins/models/gemma4/gemma4_weights.h"

namespace oxinfer {
namespace gemma4 {

// n consecutive positions of one sequence, starting at its current length.
struct Piece {
  int seq = 0;
  int64_t n = 0;
  const int32_t* tokens = nullptr;          // [n] or null (every position an embedding)
  const float* embeddings = nullptr;        // [n][hidden] or null
  const uint8_t* embedding_mask = nullptr;  // [n] or null (with embeddings: all)
  // Logits wanted: none, the last position's, or every position's ([n][vocab]).
  enum Logits { kNone, kLast, kAll } logits = kNone;
  float* logits_out = nullptr;
  // With logits: their rows' final-norm hidden states ([logit rows][hidden])
  // too, or null.
  float* hidden_out = nullptr;
  bool UsesEmbedding(int64_t i) const {
    return embeddings != nullptr && (embedding_mask == nullptr || embedding_mask[i] != 0);
  }
  int64_t logit_rows() const { return logits == kNone ? 0 : logits == kLast ? 1 : n; }
};

// A layer's MLP block on x (in place): x += post_ff_norm(down(gelu_tanh(
// gate(h)) * up(h))), h = pre_ff_norm(x); h, gate and up are temporaries.
sdk::Status FeedForward(const sdk::Compute& cx, const LayerWeights& lw, float eps,
                        const sdk::Tensor& x, const sdk::Tensor& h, const sdk::Tensor& gate,
                        const sdk::Tensor& up);

class Decoder {
 public:
  Decoder(const Gemma4Config& cfg, const Gemma4Weights& w, const sdk::Compute& cx,
          SequenceStore* store)
      : cfg_(cfg), w_(w), cx_(cx), store_(store), scratch_(&cx) {}

  // Appends each piece to its sequence (distinct sequences, room reserved)
  // and writes the logits asked for. The caller updates lengths and history.
  sdk::Status Step(const std::vector<Piece>& pieces);

 private:
  // Where a piece's rows lie in the current activations and what they see.
  struct Rows {
    int seq = 0;
    int64_t r0 = 0, n = 0;  // rows [r0, r0 + n) of the activations
    int64_t p0 = 0;         // position of the piece's first row
    int64_t kv_len = 0;     // positions in the caches after this step
    sdk::Tensor q_pos;      // [1][n] i32
    sdk::Tensor ring_ids;   // [1][piece n] i32: ring slots written (before compaction only)
    sdk::Tensor ring_pos;   // [1][ring slots] i32: positions the ring slots hold
  };
  struct Activations {
    int64_t rows = 0;
    sdk::Tensor x;    // [rows][hidden] the residual stream
    sdk::Tensor pos;  // [1][rows] i32
    sdk::Tensor ple;  // [rows][layers * ple] per-layer inputs (empty without PLE)
    std::vector<Rows> pieces;
    // Each layer's temporaries: views of the first rows x cols of these.
    sdk::Tensor h, q, k, v, attn, gate, up, ple_gate;
  };

  sdk::Status Embed(const std::vector<Piece>& pieces, Activations* a);
  sdk::Status AllocateTemporaries(Activations* a);
  sdk::Status PerLayerInputs(const sdk::Tensor& ids, Activations* a);
  sdk::Status Layer(int li, const Activations& a);
  sdk::Status Attention(int li, const Activations& a, const sdk::Tensor& h, const sdk::Tensor& out);
  // Keeps only the rows whose logits are wanted.
  sdk::Status Compact(const std::vector<Piece>& pieces, Activations* a);
  sdk::Status Logits(const std::vector<Piece>& pieces, const Activations& a);

  const Gemma4Config& cfg_;
  const Gemma4Weights& w_;
  const sdk::Compute& cx_;
  SequenceStore* store_;
  sdk::Scratch scratch_;
};

}  // namespace gemma4
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_FORWARD_H_
