#include "plugins/models/qwen35/qwen35_sequences.h"

#include <algorithm>
#include <utility>

#include "oxinfer/sdk/common.hpp"

namespace oxinfer {
namespace qwen35 {
namespace {

using sdk::StrCat;

constexpr uint64_t kAlign = 256;
constexpr int64_t kMinKvRows = 256;

uint64_t AlignUp(uint64_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

}  // namespace

Sequences::Sequences(const sdk::Compute* cx, const Qwen35Config& c, int32_t max_sequences,
                     int64_t context_length)
    : cx_(cx),
      kernel_history_(c.linear_conv_kernel_dim - 1),
      key_dim_(c.key_dim()),
      value_dim_(c.value_dim()),
      v_heads_(c.linear_num_value_heads),
      state_cols_(c.linear_key_head_dim * c.linear_value_head_dim),
      kv_cols_(c.num_key_value_heads * c.head_dim),
      context_(context_length),
      seqs_(static_cast<size_t>(max_sequences)) {
  for (LayerType t : c.layer_types) {
    ++(t == LayerType::kLinearAttention ? n_deltanet_ : n_attention_);
  }
  const uint64_t f = sizeof(float);
  layer_state_bytes_ = 2 * AlignUp(kernel_history_ * key_dim_ * f) +
                       AlignUp(kernel_history_ * value_dim_ * f) +
                       AlignUp(v_heads_ * state_cols_ * f);
}

sdk::Status Sequences::Reserve(int32_t seq, int64_t total) {
  Sequence& s = seqs_[seq];
  if (!s.states && n_deltanet_ > 0) {
    OXI_ASSIGN_OR_RETURN(s.states, cx_->Alloc(layer_state_bytes_ * n_deltanet_, OXI_BUFFER_ZERO));
    s.states_zero = true;
  }
  if (s.length == 0 && !s.states_zero && s.states) {
    const int64_t floats = static_cast<int64_t>(s.states.size() / sizeof(float));
    OXI_RETURN_IF_ERROR(cx_->Fill(s.states.View(OXI_DTYPE_F32, 1, floats), 0.0f));
    s.states_zero = true;
  }
  if (total > 0) s.states_zero = false;  // the forward that reserved writes them
  if (n_attention_ > 0 && total > s.kv_capacity) OXI_RETURN_IF_ERROR(GrowKv(&s, total));
  return sdk::OkStatus();
}

uint64_t Sequences::KvOffset(int64_t capacity, int64_t layer, bool values) const {
  const uint64_t cache = AlignUp(static_cast<uint64_t>(capacity * kv_cols_) * sizeof(float));
  return (2 * static_cast<uint64_t>(layer) + (values ? 1 : 0)) * cache;
}

// A larger buffer (doubling, at least kMinKvRows, at most the context) with
// the cached rows copied over.
sdk::Status Sequences::GrowKv(Sequence* s, int64_t rows) {
  int64_t capacity = std::max<int64_t>(kMinKvRows, 2 * s->kv_capacity);
  while (capacity < rows) capacity *= 2;
  capacity = std::max(rows, std::min(capacity, context_));
  OXI_ASSIGN_OR_RETURN(sdk::Buffer kv, cx_->Alloc(KvOffset(capacity, n_attention_, false)));
  const int64_t used = s->length * kv_cols_ * static_cast<int64_t>(sizeof(float));
  for (int64_t a = 0; a < n_attention_ && used > 0; ++a) {
    for (bool values : {false, true}) {
      OXI_RETURN_IF_ERROR(cx_->CopyBytes(kv.get(), KvOffset(capacity, a, values), s->kv.get(),
                                         KvOffset(s->kv_capacity, a, values), used));
    }
  }
  s->kv = std::move(kv);
  s->kv_capacity = capacity;
  return sdk::OkStatus();
}

ConvState Sequences::Conv(int32_t seq, int64_t layer) const {
  oxi_buffer* b = seqs_[seq].states.get();
  uint64_t at = layer_state_bytes_ * static_cast<uint64_t>(layer);
  ConvState c;
  c.q = sdk::Tensor(b, at, OXI_DTYPE_F32, kernel_history_, key_dim_);
  at += AlignUp(kernel_history_ * key_dim_ * sizeof(float));
  c.k = sdk::Tensor(b, at, OXI_DTYPE_F32, kernel_history_, key_dim_);
  at += AlignUp(kernel_history_ * key_dim_ * sizeof(float));
  c.v = sdk::Tensor(b, at, OXI_DTYPE_F32, kernel_history_, value_dim_);
  return c;
}

sdk::Tensor Sequences::Recurrent(int32_t seq, int64_t layer) const {
  const uint64_t at = layer_state_bytes_ * static_cast<uint64_t>(layer) +
                      2 * AlignUp(kernel_history_ * key_dim_ * sizeof(float)) +
                      AlignUp(kernel_history_ * value_dim_ * sizeof(float));
  return sdk::Tensor(seqs_[seq].states.get(), at, OXI_DTYPE_F32, v_heads_, state_cols_);
}

sdk::Tensor Sequences::Keys(int32_t seq, int64_t layer) const {
  const Sequence& s = seqs_[seq];
  return sdk::Tensor(s.kv.get(), KvOffset(s.kv_capacity, layer, false), OXI_DTYPE_F32,
                     s.kv_capacity, kv_cols_);
}

sdk::Tensor Sequences::Values(int32_t seq, int64_t layer) const {
  const Sequence& s = seqs_[seq];
  return sdk::Tensor(s.kv.get(), KvOffset(s.kv_capacity, layer, true), OXI_DTYPE_F32, s.kv_capacity,
                     kv_cols_);
}

void Sequences::Clear(int32_t seq, bool release) {
  Sequence& s = seqs_[seq];
  if (s.length > 0) s.states_zero = false;
  s.length = 0;
  if (release) {
    s.kv.Reset();
    s.kv_capacity = 0;
  }
}

sdk::Status Sequences::Copy(int32_t src, int32_t dst) {
  Clear(dst, /*release=*/false);
  const Sequence& from = seqs_[src];
  if (from.length == 0) return sdk::OkStatus();
  Sequence& to = seqs_[dst];
  OXI_RETURN_IF_ERROR(Reserve(dst, from.length));
  if (from.states) {
    OXI_RETURN_IF_ERROR(cx_->CopyBytes(to.states.get(), 0, from.states.get(), 0,
                                       static_cast<int64_t>(from.states.size())));
  }
  const int64_t used = from.length * kv_cols_ * static_cast<int64_t>(sizeof(float));
  for (int64_t a = 0; a < n_attention_; ++a) {
    for (bool values : {false, true}) {
      OXI_RETURN_IF_ERROR(cx_->CopyBytes(to.kv.get(), KvOffset(to.kv_capacity, a, values),
                                         from.kv.get(), KvOffset(from.kv_capacity, a, values),
                                         used));
    }
  }
  to.length = from.length;
  to.states_zero = false;
  return sdk::OkStatus();
}

sdk::Status Sequences::SaveStates(int32_t seq, oxi_buffer* dst, uint64_t offset) const {
  const Sequence& s = seqs_[seq];
  if (!s.states) return sdk::OkStatus();
  return cx_->CopyBytes(dst, offset, s.states.get(), 0, static_cast<int64_t>(states_bytes()));
}

sdk::Status Sequences::SaveLayerState(int32_t seq, int64_t layer, Part part, oxi_buffer* dst,
                                      uint64_t offset) const {
  const Sequence& s = seqs_[seq];
  const uint64_t conv = 2 * AlignUp(kernel_history_ * key_dim_ * sizeof(float)) +
                        AlignUp(kernel_history_ * value_dim_ * sizeof(float));
  uint64_t at = layer_state_bytes_ * static_cast<uint64_t>(layer);
  uint64_t bytes = conv;
  if (part == Part::kRecurrent) {
    at += conv;
    bytes = layer_state_bytes_ - conv;
  }
  return cx_->CopyBytes(dst, offset + at, s.states.get(), at, static_cast<int64_t>(bytes));
}

sdk::Status Sequences::RestoreStates(int32_t seq, oxi_buffer* src, uint64_t offset) {
  Sequence& s = seqs_[seq];
  if (!s.states) return sdk::InternalError(StrCat("sequence ", seq, ": no states to restore"));
  s.states_zero = false;
  return cx_->CopyBytes(s.states.get(), 0, src, offset, static_cast<int64_t>(states_bytes()));
}

}  // namespace qwen35
}  // namespace oxinfer
