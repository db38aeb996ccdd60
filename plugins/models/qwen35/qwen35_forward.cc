// The batched forward: entries split into blocks of at most prefill_chunk
// rows (short entries first, so decoding sequences are not held up by a long
// prefill), each block embedded, run through every layer and, for the rows
// that want them, through the final norm and the LM head.
#include <algorithm>
#include <numeric>

#include "oxinfer/sdk/common.hpp"
#include "plugins/models/qwen35/qwen35_model.h"

namespace oxinfer {
namespace qwen35 {
namespace {

using sdk::StrCat;

// Rows per LM-head matmul: bounds the logits scratch ([rows][vocab] f32) when
// every position's logits are asked for.
constexpr int64_t kLogitRowsPerPass = 64;
// The longest entry asking OXI_LOGITS_ALL whose every position's DeltaNet
// states are kept when drafting (a speculative verification).
constexpr int64_t kMaxVerification = 64;

}  // namespace

sdk::Status Qwen35Model::CheckEntries(const std::vector<sdk::BatchEntry>& batch) const {
  for (size_t e = 0; e < batch.size(); ++e) {
    const sdk::BatchEntry& b = batch[e];
    const int64_t length = sequences_->length(b.seq);
    if (length + b.n > context_length_) {
      return sdk::OutOfRangeError(StrCat("forward: entry ", e, ": sequence ", b.seq, " would hold ",
                                         length + b.n, " positions, more than the context of ",
                                         context_length_));
    }
    if (b.positions != nullptr) {
      for (int64_t i = 0; i < b.n; ++i) {
        if (b.positions[i] != length + i) {
          return sdk::InvalidArgumentError(
              StrCat("forward: entry ", e, ": position ", i, " is ", b.positions[i],
                     ", but Qwen 3.5 takes consecutive positions only (sequence ", b.seq,
                     " continues at ", length + i, ")"));
        }
      }
    }
  }
  return sdk::OkStatus();
}

sdk::Status Qwen35Model::SaveRewinds(const std::vector<sdk::BatchEntry>& batch) {
  const uint64_t block = sequences_->states_bytes();
  for (const sdk::BatchEntry& b : batch) {
    Rewind& r = rewinds_[b.seq];
    r.from = -1;
    if (b.logits != OXI_LOGITS_ALL || b.n > kMaxVerification) continue;
    const uint64_t need = block * static_cast<uint64_t>(b.n + 1);
    if (need > 0 && r.steps.size() < need) {
      r.steps.Reset();
      OXI_ASSIGN_OR_RETURN(r.steps, cx_.Alloc(need));
    }
    if (block > 0) OXI_RETURN_IF_ERROR(sequences_->SaveStates(b.seq, r.steps.get(), 0));
    r.from = sequences_->length(b.seq);
    r.n = b.n;
  }
  return sdk::OkStatus();
}

sdk::Status Qwen35Model::Forward(const std::vector<sdk::BatchEntry>& batch) {
  OXI_RETURN_IF_ERROR(CheckEntries(batch));
  for (const sdk::BatchEntry& b : batch) {
    OXI_RETURN_IF_ERROR(sequences_->Reserve(b.seq, sequences_->length(b.seq) + b.n));
  }
  if (mtp_ != nullptr) OXI_RETURN_IF_ERROR(SaveRewinds(batch));
  std::vector<size_t> order(batch.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t x, size_t y) { return batch[x].n < batch[y].n; });
  std::vector<int64_t> done(batch.size(), 0);
  for (;;) {
    std::vector<Span> spans;
    int64_t budget = prefill_chunk_;
    for (size_t e : order) {
      const int64_t take = std::min(batch[e].n - done[e], budget);
      if (take <= 0) continue;
      spans.push_back(Span{e, done[e], take});
      budget -= take;
    }
    if (spans.empty()) break;
    OXI_RETURN_IF_ERROR(ForwardBlock(batch, spans));
    for (const Span& s : spans) {
      done[s.entry] += s.n;
      const int32_t seq = batch[s.entry].seq;
      sequences_->set_length(seq, sequences_->length(seq) + s.n);
    }
  }
  return sdk::OkStatus();
}

sdk::Status Qwen35Model::Embed(const std::vector<sdk::BatchEntry>& batch,
                               const std::vector<Span>& spans, const sdk::Tensor& x) {
  std::vector<int32_t> ids(static_cast<size_t>(x.rows), 0);
  int64_t row = 0;
  for (const Span& s : spans) {
    const sdk::BatchEntry& b = batch[s.entry];
    for (int64_t i = 0; i < s.n; ++i, ++row) {
      if (!b.UsesEmbedding(s.start + i)) ids[row] = b.tokens[s.start + i];
    }
  }
  OXI_ASSIGN_OR_RETURN(sdk::Tensor id_tensor, scratch_.I32(ids.data(), x.rows));
  OXI_RETURN_IF_ERROR(cx_.GetRows(weights_.embed, id_tensor, x));
  // Embedding rows replace their positions' lookups, a run of rows at a time.
  const int64_t H = config_.hidden_size;
  row = 0;
  for (const Span& s : spans) {
    const sdk::BatchEntry& b = batch[s.entry];
    for (int64_t i = 0; i < s.n;) {
      if (!b.UsesEmbedding(s.start + i)) {
        ++i;
        continue;
      }
      int64_t run = 1;
      while (i + run < s.n && b.UsesEmbedding(s.start + i + run)) ++run;
      OXI_RETURN_IF_ERROR(cx_.Write(x.Rows(row + i, run), b.embeddings + (s.start + i) * H));
      i += run;
    }
    row += s.n;
  }
  return sdk::OkStatus();
}

sdk::Status Qwen35Model::ForwardBlock(const std::vector<sdk::BatchEntry>& batch,
                                      const std::vector<Span>& spans) {
  scratch_.Reset();
  Block blk;
  blk.cx = &cx_;
  blk.config = &config_;
  blk.sequences = sequences_.get();
  blk.inv_freq = weights_.inv_freq.t;
  std::vector<int32_t> positions;
  std::vector<LogitRow> logit_rows;
  const int64_t V = config_.vocab_size;
  for (const Span& s : spans) {
    const sdk::BatchEntry& b = batch[s.entry];
    Piece p;
    p.seq = b.seq;
    p.row0 = blk.rows;
    p.n = s.n;
    p.pos0 = sequences_->length(b.seq);
    if (mtp_ != nullptr && b.logits == OXI_LOGITS_ALL && rewinds_[b.seq].from >= 0 &&
        sequences_->states_bytes() > 0) {
      p.steps = rewinds_[b.seq].steps.get();
      p.step0 = s.start;
    }
    blk.pieces.push_back(p);
    for (int64_t i = 0; i < s.n; ++i) positions.push_back(static_cast<int32_t>(p.pos0 + i));
    if (b.logits == OXI_LOGITS_ALL) {
      for (int64_t i = 0; i < s.n; ++i) {
        logit_rows.push_back(LogitRow{p.row0 + i, b.logits_out + (s.start + i) * V});
      }
    } else if (b.logits == OXI_LOGITS_LAST && s.start + s.n == b.n) {
      logit_rows.push_back(LogitRow{p.row0 + s.n - 1, b.logits_out});
    }
    blk.rows += s.n;
  }
  const int64_t H = config_.hidden_size;
  const float eps = static_cast<float>(config_.rms_norm_eps);
  OXI_ASSIGN_OR_RETURN(sdk::Tensor x, scratch_.F32(blk.rows, H));
  OXI_RETURN_IF_ERROR(Embed(batch, spans, x));
  OXI_ASSIGN_OR_RETURN(blk.pos, scratch_.I32(positions.data(), blk.rows));
  OXI_ASSIGN_OR_RETURN(blk.ws, AllocWorkspace(&scratch_, config_, blk.rows));
  const Workspace& ws = blk.ws;
  for (size_t i = 0; i < weights_.layers.size(); ++i) {
    const LayerWeights& L = weights_.layers[i];
    const sdk::Status layer = [&]() -> sdk::Status {
      OXI_RETURN_IF_ERROR(cx_.RmsNorm(x, L.input_norm, ws.h, eps, 1.0f));
      if (L.type == LayerType::kLinearAttention) {
        OXI_RETURN_IF_ERROR(DeltaNetLayer(blk, L.lin, type_index_[i], ws.h, ws.o));
      } else {
        OXI_RETURN_IF_ERROR(AttentionLayer(blk, L.attn, type_index_[i], ws.h, ws.o));
      }
      OXI_RETURN_IF_ERROR(cx_.Add(x, ws.o, x));
      OXI_RETURN_IF_ERROR(cx_.RmsNorm(x, L.post_norm, ws.h, eps, 1.0f));
      OXI_RETURN_IF_ERROR(Mlp(blk, L, ws.h, ws.o));
      return cx_.Add(x, ws.o, x);
    }();
    if (!layer.ok()) return layer.WithContext(StrCat("layer ", i));
  }
  if (mtp_ != nullptr) OXI_RETURN_IF_ERROR(KeepHidden(batch, spans, blk, x));
  if (logit_rows.empty()) return sdk::OkStatus();
  return Logits(blk, x, logit_rows);
}

// The final norm of every row (vLLM's MTP reads the main model's normed
// hidden states), read back for the head.
sdk::Status Qwen35Model::KeepHidden(const std::vector<sdk::BatchEntry>& batch,
                                    const std::vector<Span>& spans, const Block& blk,
                                    const sdk::Tensor& x) {
  const int64_t H = config_.hidden_size;
  const float eps = static_cast<float>(config_.rms_norm_eps);
  OXI_RETURN_IF_ERROR(cx_.RmsNorm(x, weights_.final_norm, blk.ws.h, eps, 1.0f));
  std::vector<float> hidden(static_cast<size_t>(blk.rows * H));
  OXI_RETURN_IF_ERROR(cx_.Read(blk.ws.h, hidden.data()));
  for (size_t i = 0; i < spans.size(); ++i) {
    const sdk::BatchEntry& b = batch[spans[i].entry];
    const Piece& p = blk.pieces[i];
    OXI_RETURN_IF_ERROR(mtp_->Keep(b.seq, p.pos0, p.n,
                                   b.tokens != nullptr ? b.tokens + spans[i].start : nullptr,
                                   hidden.data() + p.row0 * H));
  }
  return sdk::OkStatus();
}

// The final norm and the LM head on the rows that want logits, read into the
// entries' buffers (consecutive rows of one entry in one read).
sdk::Status Qwen35Model::Logits(const Block& blk, const sdk::Tensor& x,
                                const std::vector<LogitRow>& rows) {
  const int64_t V = config_.vocab_size;
  const float eps = static_cast<float>(config_.rms_norm_eps);
  const int64_t pass = std::min<int64_t>(kLogitRowsPerPass, static_cast<int64_t>(rows.size()));
  OXI_ASSIGN_OR_RETURN(sdk::Tensor logits, scratch_.F32(pass, V));
  std::vector<int32_t> ids;
  for (size_t r0 = 0; r0 < rows.size(); r0 += static_cast<size_t>(pass)) {
    const int64_t g = std::min<int64_t>(pass, static_cast<int64_t>(rows.size() - r0));
    ids.clear();
    for (int64_t j = 0; j < g; ++j) ids.push_back(static_cast<int32_t>(rows[r0 + j].row));
    const sdk::Tensor h = blk.ws.h.Rows(0, g);
    OXI_ASSIGN_OR_RETURN(sdk::Tensor id_tensor, scratch_.I32(ids.data(), g));
    OXI_RETURN_IF_ERROR(cx_.GetRows(x, id_tensor, h));
    OXI_RETURN_IF_ERROR(cx_.RmsNorm(h, weights_.final_norm, h, eps, 1.0f));
    OXI_RETURN_IF_ERROR(cx_.MatMul(h, weights_.lm_head, logits.Rows(0, g)));
    for (int64_t j = 0; j < g;) {
      int64_t run = 1;
      while (j + run < g && rows[r0 + j + run].dst == rows[r0 + j].dst + run * V) ++run;
      OXI_RETURN_IF_ERROR(cx_.Read(logits.Rows(j, run), rows[r0 + j].dst));
      j += run;
    }
  }
  return sdk::OkStatus();
}

}  // namespace qwen35
}  // namespace oxinfer
