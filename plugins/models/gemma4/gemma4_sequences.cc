#include "plugins/models/gemma4/gemma4_sequences.h"

#include <algorithm>
#include <utility>

namespace oxinfer {
namespace gemma4 {
namespace {

constexpr int64_t kFirstGlobalSlots = 256;

int64_t RowFloats(const LayerConfig& c) { return int64_t{c.num_kv_heads} * c.head_dim; }

// Keeps the hidden states of positions before n.
void TrimHidden(Sequence* s, int64_t n, int64_t width) {
  const int64_t rows = std::max<int64_t>(0, n - s->hidden_pos0);
  if (rows * width < static_cast<int64_t>(s->hidden.size())) s->hidden.resize(rows * width);
}

bool HasRings(const Gemma4Config& cfg) {
  for (const LayerConfig& c : cfg.layers) {
    if (c.sliding && !c.kv_shared) return true;
  }
  return false;
}

}  // namespace

SequenceStore::SequenceStore(const Gemma4Config& cfg, const sdk::Compute& cx, int max_sequences,
                             int64_t ring_slots, int64_t context)
    : cfg_(cfg),
      cx_(cx),
      ring_slots_(ring_slots),
      context_(context),
      has_rings_(HasRings(cfg)),
      behind_(cfg.sliding_window - 1),
      seqs_(max_sequences) {}

sdk::Status SequenceStore::Reserve(int seq, int64_t length) {
  Sequence& s = seqs_[seq];
  if (s.caches.empty()) {
    s.caches.resize(cfg_.layers.size());
    s.ring_pos.assign(ring_slots_, -1);
  }
  for (size_t i = 0; i < cfg_.layers.size(); ++i) {
    const LayerConfig& c = cfg_.layers[i];
    if (c.kv_shared) continue;
    LayerCache& kv = s.caches[i];
    const int64_t row = RowFloats(c);
    if (c.sliding) {
      if (!kv.k.t.empty()) continue;
      OXI_ASSIGN_OR_RETURN(kv.k, cx_.NewTensor(OXI_DTYPE_F32, ring_slots_, row, OXI_BUFFER_ZERO));
      OXI_ASSIGN_OR_RETURN(kv.v, cx_.NewTensor(OXI_DTYPE_F32, ring_slots_, row, OXI_BUFFER_ZERO));
      continue;
    }
    if (kv.slots() >= length) continue;
    int64_t slots = std::max<int64_t>(kv.slots(), kFirstGlobalSlots);
    while (slots < length) slots *= 2;
    slots = std::max(std::min(slots, context_), length);
    LayerCache grown;
    OXI_ASSIGN_OR_RETURN(grown.k, cx_.NewTensor(OXI_DTYPE_F32, slots, row));
    OXI_ASSIGN_OR_RETURN(grown.v, cx_.NewTensor(OXI_DTYPE_F32, slots, row));
    const int64_t used = std::min(s.length, kv.slots()) * row * int64_t{sizeof(float)};
    if (used > 0) {
      OXI_RETURN_IF_ERROR(cx_.CopyBytes(grown.k.t.buffer, 0, kv.k.t.buffer, 0, used));
      OXI_RETURN_IF_ERROR(cx_.CopyBytes(grown.v.t.buffer, 0, kv.v.t.buffer, 0, used));
    }
    kv = std::move(grown);
  }
  return sdk::OkStatus();
}

std::vector<int32_t> SequenceStore::TakeRingSlots(int seq, int64_t p0, int64_t n) {
  Sequence& s = seqs_[seq];
  std::vector<int32_t> slots(n);
  for (int64_t t = 0; t < n; ++t) {
    slots[t] = static_cast<int32_t>((p0 + t) % ring_slots_);
    s.ring_pos[slots[t]] = static_cast<int32_t>(p0 + t);
  }
  return slots;
}

bool SequenceStore::NeedsRebuild(int seq, int64_t n_keep) const {
  const Sequence& s = seqs_[seq];
  if (n_keep >= s.length || n_keep == 0 || !has_rings_) return false;
  for (int64_t p = std::max<int64_t>(0, n_keep - behind_); p < n_keep; ++p) {
    if (s.ring_pos[p % ring_slots_] != p) return true;
  }
  return false;
}

void SequenceStore::DropTail(int seq, int64_t n_keep) {
  Sequence& s = seqs_[seq];
  if (n_keep >= s.length) return;
  for (int32_t& p : s.ring_pos) {
    if (p >= n_keep) p = -1;
  }
  s.length = n_keep;
  s.tokens.resize(n_keep);
  TrimHidden(&s, n_keep, cfg_.hidden_size);
  if (s.first_embedding >= n_keep) s.first_embedding = std::numeric_limits<int64_t>::max();
}

void SequenceStore::Clear(int seq) {
  Sequence& s = seqs_[seq];
  std::fill(s.ring_pos.begin(), s.ring_pos.end(), -1);
  s.length = 0;
  s.tokens.clear();
  s.hidden.clear();
  s.first_embedding = std::numeric_limits<int64_t>::max();
}

void SequenceStore::Release(int seq) {
  Clear(seq);
  Sequence& s = seqs_[seq];
  for (size_t i = 0; i < s.caches.size(); ++i) {
    if (!cfg_.layers[i].sliding) s.caches[i] = LayerCache();
  }
  s.tokens.shrink_to_fit();
}

sdk::Status SequenceStore::CopyPrefix(int src, int dst, int64_t n) {
  Clear(dst);
  if (n == 0) return sdk::OkStatus();
  OXI_RETURN_IF_ERROR(Reserve(dst, n));
  const Sequence& a = seqs_[src];
  Sequence& b = seqs_[dst];
  for (size_t i = 0; i < cfg_.layers.size(); ++i) {
    const LayerConfig& c = cfg_.layers[i];
    if (c.kv_shared) continue;
    const int64_t rows = c.sliding ? ring_slots_ : n;
    const int64_t bytes = rows * RowFloats(c) * int64_t{sizeof(float)};
    const LayerCache& from = a.caches[i];
    LayerCache& to = b.caches[i];
    OXI_RETURN_IF_ERROR(cx_.CopyBytes(to.k.t.buffer, 0, from.k.t.buffer, 0, bytes));
    OXI_RETURN_IF_ERROR(cx_.CopyBytes(to.v.t.buffer, 0, from.v.t.buffer, 0, bytes));
  }
  b.ring_pos = a.ring_pos;
  for (int32_t& p : b.ring_pos) {
    if (p >= n) p = -1;
  }
  b.length = n;
  b.tokens.assign(a.tokens.begin(), a.tokens.begin() + n);
  b.hidden_pos0 = a.hidden_pos0;
  b.hidden = a.hidden;
  TrimHidden(&b, n, cfg_.hidden_size);
  b.first_embedding = a.first_embedding < n ? a.first_embedding : b.first_embedding;
  return sdk::OkStatus();
}

}  // namespace gemma4
}  // namespace oxinfer
