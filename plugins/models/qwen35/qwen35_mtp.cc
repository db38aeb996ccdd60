#include "plugins/models/qwen35/qwen35_mtp.h"

#include <algorithm>
#include <utility>

#include "oxinfer/sdk/common.hpp"
#include "plugins/models/qwen35/qwen35_layers.h"

namespace oxinfer {
namespace qwen35 {
namespace {

using sdk::StrCat;

Qwen35Config OneAttentionLayer(Qwen35Config c) {
  c.layer_types.assign(1, LayerType::kFullAttention);
  c.num_hidden_layers = 1;
  return c;
}

}  // namespace

MtpHead::MtpHead(const sdk::Compute* cx, const Qwen35Config& config, const Qwen35Weights* weights,
                 int32_t max_sequences, int64_t context_length)
    : cx_(cx),
      config_(config),
      kv_config_(OneAttentionLayer(config)),
      w_(weights),
      kv_(std::make_unique<Sequences>(cx, kv_config_, max_sequences, context_length)),
      pending_(static_cast<size_t>(max_sequences)) {}

sdk::Status MtpHead::Keep(int32_t seq, int64_t pos0, int64_t n, const int32_t* tokens,
                          const float* hidden) {
  Pending& p = pending_[seq];
  if (p.tokens.empty()) p.pos0 = pos0;
  if (p.pos0 + static_cast<int64_t>(p.tokens.size()) != pos0) {
    return sdk::InternalError(StrCat("mtp: sequence ", seq, ": hidden states of position ", pos0,
                                     " after ", p.pos0 + static_cast<int64_t>(p.tokens.size())));
  }
  for (int64_t i = 0; i < n; ++i) p.tokens.push_back(tokens != nullptr ? tokens[i] : 0);
  p.hidden.insert(p.hidden.end(), hidden, hidden + n * config_.hidden_size);
  return sdk::OkStatus();
}

sdk::Status MtpHead::Step(int32_t seq, int64_t pos0, const std::vector<int32_t>& ids,
                          const float* hidden, sdk::Scratch* scratch, std::vector<float>* h_out,
                          std::vector<float>* logits) {
  const MtpWeights& m = w_->mtp;
  const int64_t H = config_.hidden_size, V = config_.vocab_size;
  const int64_t rows = static_cast<int64_t>(ids.size());
  const float eps = static_cast<float>(config_.rms_norm_eps);
  scratch->Reset();
  OXI_RETURN_IF_ERROR(kv_->Reserve(seq, pos0 + rows));
  Block blk;
  blk.cx = cx_;
  blk.config = &kv_config_;
  blk.sequences = kv_.get();
  blk.inv_freq = w_->inv_freq.t;
  blk.rows = rows;
  blk.pieces.push_back(Piece{seq, 0, rows, pos0});
  std::vector<int32_t> positions(static_cast<size_t>(rows));
  for (int64_t i = 0; i < rows; ++i) positions[i] = static_cast<int32_t>(pos0 + i);
  OXI_ASSIGN_OR_RETURN(blk.pos, scratch->I32(positions.data(), rows));
  OXI_ASSIGN_OR_RETURN(blk.ws, AllocWorkspace(scratch, kv_config_, rows));
  const Workspace& ws = blk.ws;

  OXI_ASSIGN_OR_RETURN(sdk::Tensor id_tensor, scratch->I32(ids.data(), rows));
  OXI_ASSIGN_OR_RETURN(sdk::Tensor e, scratch->F32(rows, H));
  OXI_ASSIGN_OR_RETURN(sdk::Tensor h, scratch->F32(rows, H));
  OXI_ASSIGN_OR_RETURN(sdk::Tensor cat, scratch->F32(rows, 2 * H));
  OXI_ASSIGN_OR_RETURN(sdk::Tensor x, scratch->F32(rows, H));
  OXI_RETURN_IF_ERROR(cx_->GetRows(w_->embed, id_tensor, e));
  OXI_RETURN_IF_ERROR(cx_->RmsNorm(e, m.pre_fc_norm_embedding, e, eps, 1.0f));
  OXI_RETURN_IF_ERROR(cx_->Write(h, hidden));
  OXI_RETURN_IF_ERROR(cx_->RmsNorm(h, m.pre_fc_norm_hidden, h, eps, 1.0f));
  OXI_RETURN_IF_ERROR(cx_->Concat(e, h, cat));  // the embedding first, as vLLM's torch.cat
  OXI_RETURN_IF_ERROR(cx_->MatMul(cat, m.fc, x));

  const LayerWeights& L = m.layer;
  OXI_RETURN_IF_ERROR(cx_->RmsNorm(x, L.input_norm, ws.h, eps, 1.0f));
  OXI_RETURN_IF_ERROR(AttentionLayer(blk, L.attn, 0, ws.h, ws.o));
  OXI_RETURN_IF_ERROR(cx_->Add(x, ws.o, x));
  OXI_RETURN_IF_ERROR(cx_->RmsNorm(x, L.post_norm, ws.h, eps, 1.0f));
  OXI_RETURN_IF_ERROR(Mlp(blk, L, ws.h, ws.o));
  OXI_RETURN_IF_ERROR(cx_->Add(x, ws.o, x));
  kv_->set_length(seq, pos0 + rows);

  const sdk::Tensor last = ws.h.Rows(0, 1);
  OXI_RETURN_IF_ERROR(cx_->RmsNorm(x.Rows(rows - 1, 1), m.norm, last, eps, 1.0f));
  OXI_ASSIGN_OR_RETURN(sdk::Tensor lg, scratch->F32(1, V));
  OXI_RETURN_IF_ERROR(cx_->MatMul(last, w_->lm_head, lg));
  h_out->resize(static_cast<size_t>(H));
  logits->resize(static_cast<size_t>(V));
  OXI_RETURN_IF_ERROR(cx_->Read(last, h_out->data()));
  return cx_->Read(lg, logits->data());
}

sdk::Status MtpHead::Draft(const sdk::DraftRequest& r, int64_t length, sdk::Scratch* scratch) {
  Pending& p = pending_[r.seq];
  const int64_t m = static_cast<int64_t>(p.tokens.size());
  if (m == 0 || p.pos0 + m != length) {
    return sdk::FailedPreconditionError(
        StrCat("draft: sequence ", r.seq, " holds ", length,
               " positions but the MTP head has no hidden state of its last one (feed the ",
               "sequence with a forward before drafting)"));
  }
  const int64_t H = config_.hidden_size, V = config_.vocab_size;
  // The first step reads every position the head has not seen, each with
  // the token that follows it; the last one's follower is next_token.
  std::vector<int32_t> ids(p.tokens.begin() + 1, p.tokens.end());
  ids.push_back(r.next_token);
  std::vector<float> h_prev, logits;
  int64_t pos = p.pos0;
  const float* hidden = p.hidden.data();
  for (int32_t s = 0; s < r.n_draft; ++s) {
    OXI_RETURN_IF_ERROR(Step(r.seq, pos, ids, hidden, scratch, &h_prev, &logits)
                            .WithContext(StrCat("mtp draft ", s)));
    pos += static_cast<int64_t>(ids.size());
    const int32_t best =
        static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
    r.tokens_out[s] = best;
    if (r.logits_out != nullptr) std::copy(logits.begin(), logits.end(), r.logits_out + s * V);
    if (r.hidden_out != nullptr) std::copy(h_prev.begin(), h_prev.end(), r.hidden_out + s * H);
    ids.assign(1, best);
    hidden = h_prev.data();
  }
  // Positions before the last are final in the head's cache; the last is
  // read again next time (with the same follower), so drafting twice is the
  // same as once and the drafts' own cache rows are overwritten.
  p.pos0 = length - 1;
  p.tokens.erase(p.tokens.begin(), p.tokens.end() - 1);
  p.hidden.erase(p.hidden.begin(), p.hidden.end() - H);
  kv_->set_length(r.seq, length - 1);
  return sdk::OkStatus();
}

void MtpHead::Truncate(int32_t seq, int64_t n_keep) {
  Pending& p = pending_[seq];
  const int64_t keep = std::max<int64_t>(0, n_keep - p.pos0);
  if (keep < static_cast<int64_t>(p.tokens.size())) {
    p.tokens.resize(static_cast<size_t>(keep));
    p.hidden.resize(static_cast<size_t>(keep * config_.hidden_size));
  }
  if (kv_->length(seq) > n_keep) kv_->set_length(seq, n_keep);
}

void MtpHead::Clear(int32_t seq, bool release) {
  pending_[seq] = Pending();
  kv_->Clear(seq, release);
}

sdk::Status MtpHead::Copy(int32_t src, int32_t dst) {
  pending_[dst] = pending_[src];
  return kv_->Copy(src, dst);
}

}  // namespace qwen35
}  // namespace oxinfer
