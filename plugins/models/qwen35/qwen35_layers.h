// The layers of the Qwen 3.5 text model over a block of rows from several
// sequences. Projections, norms and the MLP run on all rows at once (one
// matmul per weight for the whole batch); the causal conv, the gated delta
// rule and attention run per sequence on that sequence's state and cache.
#ifndef OXINFER_PLUGINS_MODELS_QWEN35_QWEN35_LAYERS_H_
#define OXINFER_PLUGINS_MODELS_QWEN35_QWEN35_LAYERS_H_

#include <cstdint>
#include <vector>

#include "oxinfer/sdk/compute.hpp"
#include "plugins/models/qwen35/qwen35_config.h"
#include "plugins/models/qwen35/qwen35_sequences.h"
#include "plugins/models/qwen35/qwen35_weights.h"

namespace oxinfer {
namespace qwen35 {

// Rows [row0, row0 + n) of a block: positions pos0... of sequence seq.
struct Piece {
  int32_t seq = 0;
  int64_t row0 = 0;
  int64_t n = 0;
  int64_t pos0 = 0;
  // Non-null (a speculative verification): the DeltaNet layers feed the
  // piece token by token and save every layer's state after row i as block
  // step0 + i + 1 of this buffer (blocks of Sequences::states_bytes()).
  oxi_buffer* steps = nullptr;
  int64_t step0 = 0;
};

// Activations reused by every layer of a block (views into the forward's scratch).
struct Workspace {
  sdk::Tensor h;  // [rows][hidden]: normed input of a sublayer
  sdk::Tensor o;  // [rows][hidden]: a sublayer's output
  // DeltaNet.
  sdk::Tensor qkv;   // [rows][conv_dim]: in_proj_qkv
  sdk::Tensor q, k;  // [rows][key_dim]: conv + SiLU, then L2-normalised
  sdk::Tensor v;     // [rows][value_dim]: conv + SiLU
  sdk::Tensor z;     // [rows][value_dim]: the output gate
  sdk::Tensor b, a;  // [rows][v_heads]: beta, then the log decay g
  sdk::Tensor core;  // [rows][value_dim]: the delta rule's output
  // Attention.
  sdk::Tensor qg;      // [rows][heads * 2 * head_dim]: per head, query then gate
  sdk::Tensor aq;      // [rows][heads * head_dim]: normed, rotated queries
  sdk::Tensor ak, av;  // [rows][kv_heads * head_dim]
  sdk::Tensor att;     // [rows][heads * head_dim]
  // MLP.
  sdk::Tensor gate, up;  // [rows][intermediate]
};

sdk::StatusOr<Workspace> AllocWorkspace(sdk::Scratch* scratch, const Qwen35Config& c, int64_t rows);

struct Block {
  const sdk::Compute* cx = nullptr;
  const Qwen35Config* config = nullptr;
  Sequences* sequences = nullptr;
  std::vector<Piece> pieces;
  int64_t rows = 0;
  sdk::Tensor pos;       // [1][rows] i32: every row's position
  sdk::Tensor inv_freq;  // [1][rotary_dim / 2] f32 (empty without RoPE)
  Workspace ws;
};

// out = the DeltaNet mixer of h (the index-th DeltaNet layer).
sdk::Status DeltaNetLayer(const Block& b, const DeltaNetWeights& w, int64_t index,
                          const sdk::Tensor& h, const sdk::Tensor& out);
// out = the gated attention of h (the index-th attention layer); appends to the KV caches.
sdk::Status AttentionLayer(const Block& b, const AttentionWeights& w, int64_t index,
                           const sdk::Tensor& h, const sdk::Tensor& out);
// out = down(silu(gate(h)) * up(h)).
sdk::Status Mlp(const Block& b, const LayerWeights& w, const sdk::Tensor& h,
                const sdk::Tensor& out);

}  // namespace qwen35
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_QWEN35_QWEN35_LAYERS_H_
