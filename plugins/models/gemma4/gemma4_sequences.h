// The state of every sequence a Gemma 4 model holds: its KV caches on the
// backend, and on the host the token history and the position each ring slot
// holds.
//
// Sliding layers keep a ring of window + prefill_chunk slots (room for the
// window behind the first query of a chunk plus the chunk); all rings of a
// sequence hold the same positions in the same slots, so one host vector
// describes them. Global layers keep every position in order, in buffers that
// double when full. KV-shared layers own no cache.
#ifndef OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_SEQUENCES_H_
#define OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_SEQUENCES_H_

#include <cstdint>
#include <limits>
#include <vector>

#include "oxinfer/sdk/compute.hpp"
#include "oxinfer/sdk/status.hpp"
#include "plugins/models/gemma4/gemma4_config.h"

namespace oxinfer {
namespace gemma4 {

struct LayerCache {
  sdk::OwnedTensor k, v;  // [slots][kv heads * head dim] f32
  int64_t slots() const { return k.t.rows; }
};

struct Sequence {
  int64_t length = 0;
  std::vector<int32_t> tokens;  // the history, to rebuild the rings after a deep truncate
  // The first position fed by an embedding row (such positions cannot be rebuilt).
  int64_t first_embedding = std::numeric_limits<int64_t>::max();
  // Drafting (an assistant opened): the final-norm hidden states [rows][hidden]
  // of positions [hidden_pos0, hidden_pos0 + rows), the last forward's logit rows.
  int64_t hidden_pos0 = 0;
  std::vector<float> hidden;
  std::vector<int32_t> ring_pos;   // position held by each ring slot, -1: empty
  std::vector<LayerCache> caches;  // per layer; empty for shared layers (and until first use)
};

class SequenceStore {
 public:
  SequenceStore(const Gemma4Config& cfg, const sdk::Compute& cx, int max_sequences,
                int64_t ring_slots, int64_t context);

  Sequence& at(int seq) { return seqs_[seq]; }
  const Sequence& at(int seq) const { return seqs_[seq]; }
  int64_t ring_slots() const { return ring_slots_; }
  // Whether any layer keeps a ring (a sliding layer that is not KV-shared).
  bool has_rings() const { return has_rings_; }

  // Makes room for `length` positions (rings on first use, global caches
  // doubled as needed, contents kept).
  sdk::Status Reserve(int seq, int64_t length);
  // The ring slots of positions [p0, p0 + n), marked as holding them.
  std::vector<int32_t> TakeRingSlots(int seq, int64_t p0, int64_t n);

  // Whether keeping n_keep positions needs the rings recomputed (they lost
  // positions the window behind position n_keep needs: sliding_window - 1 of
  // them, or `behind` when a drafter reads more).
  bool NeedsRebuild(int seq, int64_t n_keep) const;
  void set_behind(int64_t behind) { behind_ = behind; }
  // Forgets positions >= n_keep (the caller rebuilds when NeedsRebuild).
  void DropTail(int seq, int64_t n_keep);
  // Empties a sequence, keeping its buffers.
  void Clear(int seq);
  // Empties a sequence and releases its global caches (the rings stay: a fixed reserve).
  void Release(int seq);
  // dst (emptied first) becomes src's first n positions: caches copied on the
  // backend. The caller checks NeedsRebuild(src, n) first (then dst must be
  // recomputed from the history instead).
  sdk::Status CopyPrefix(int src, int dst, int64_t n);

 private:
  const Gemma4Config& cfg_;
  const sdk::Compute& cx_;
  const int64_t ring_slots_;
  const int64_t context_;
  const bool has_rings_;
  int64_t behind_;
  std::vector<Sequence> seqs_;
};

}  // namespace gemma4
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_SEQUENCES_H_
