// The per-sequence state of a Qwen 3.5 model, in backend buffers: for each
// DeltaNet layer the causal-conv history of its q, k and v channels and the
// recurrent state of every value head (fixed size, kept from one use of the
// sequence to the next), for each attention layer a KV cache that grows by
// doubling. DeltaNet states summarise the whole past and cannot be rewound.
#ifndef OXINFER_PLUGINS_MODELS_QWEN35_QWEN35_SEQUENCES_H_
#define OXINFER_PLUGINS_MODELS_QWEN35_QWEN35_SEQUENCES_H_

#include <cstdint>
#include <vector>

#include "oxinfer/sdk/compute.hpp"
#include "plugins/models/qwen35/qwen35_config.h"

namespace oxinfer {
namespace qwen35 {

// The conv history of one DeltaNet layer, split as its channels are: q, k, v.
struct ConvState {
  sdk::Tensor q, k, v;  // [kernel - 1][key_dim], [kernel - 1][key_dim], [kernel - 1][value_dim]
};

class Sequences {
 public:
  Sequences(const sdk::Compute* cx, const Qwen35Config& config, int32_t max_sequences,
            int64_t context_length);

  int64_t length(int32_t seq) const { return seqs_[seq].length; }
  void set_length(int32_t seq, int64_t n) { seqs_[seq].length = n; }

  // Makes `seq` ready to grow to `total` positions: its states allocated (and
  // zeroed when it starts empty), its KV caches large enough.
  sdk::Status Reserve(int32_t seq, int64_t total);

  // Views of a sequence's state (valid after Reserve, until the next Reserve).
  // `layer` counts the layers of that type only.
  ConvState Conv(int32_t seq, int64_t deltanet_layer) const;
  sdk::Tensor Recurrent(int32_t seq, int64_t deltanet_layer) const;  // [v_heads][k_dim * v_dim]
  sdk::Tensor Keys(int32_t seq, int64_t attention_layer) const;      // [capacity][kv_heads * hd]
  sdk::Tensor Values(int32_t seq, int64_t attention_layer) const;

  // Empties a sequence; its states are zeroed before the next use. With
  // `release`, its KV caches are freed too (the fixed-size states stay).
  void Clear(int32_t seq, bool release);
  // dst becomes a copy of src (every state and the cached positions).
  sdk::Status Copy(int32_t src, int32_t dst);

  // Speculative verification keeps the DeltaNet states of every position it
  // feeds, so that a rejected tail is dropped without feeding anything
  // again (the KV caches only grow; set_length forgets what is beyond).
  // The bytes of one copy of a sequence's DeltaNet states (all layers).
  uint64_t states_bytes() const { return layer_state_bytes_ * static_cast<uint64_t>(n_deltanet_); }
  // Copies all of seq's states to dst at `offset`, or one layer's conv
  // history or recurrent state into the same layout (its share of a
  // states_bytes() block at `offset`).
  sdk::Status SaveStates(int32_t seq, oxi_buffer* dst, uint64_t offset) const;
  enum class Part { kConv, kRecurrent };
  sdk::Status SaveLayerState(int32_t seq, int64_t deltanet_layer, Part part, oxi_buffer* dst,
                             uint64_t offset) const;
  // seq's states become the states_bytes() block of src at `offset`.
  sdk::Status RestoreStates(int32_t seq, oxi_buffer* src, uint64_t offset);

 private:
  struct Sequence {
    int64_t length = 0;
    bool states_zero = false;  // whether the state buffer holds zeros (a fresh start)
    sdk::Buffer states;        // every DeltaNet layer's conv and recurrent states
    int64_t kv_capacity = 0;   // rows of each KV cache
    sdk::Buffer kv;            // every attention layer's keys, then values
  };
  uint64_t KvOffset(int64_t capacity, int64_t attention_layer, bool values) const;
  sdk::Status GrowKv(Sequence* s, int64_t rows);

  const sdk::Compute* cx_;
  int64_t kernel_history_ = 0;  // conv kernel - 1
  int64_t key_dim_ = 0, value_dim_ = 0;
  int64_t v_heads_ = 0, state_cols_ = 0;  // recurrent state [v_heads][k_dim * v_dim]
  int64_t n_deltanet_ = 0, n_attention_ = 0;
  int64_t kv_cols_ = 0;  // kv_heads * head_dim
  int64_t context_ = 0;
  uint64_t layer_state_bytes_ = 0;  // one DeltaNet layer's share of `states`
  std::vector<Sequence> seqs_;
};

}  // namespace qwen35
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_QWEN35_QWEN35_SEQUENCES_H_
