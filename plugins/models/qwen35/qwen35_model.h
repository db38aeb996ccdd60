// The Qwen 3.5 dense text model (Gated DeltaNet layers interleaved with gated
// full-attention layers) as a model plugin of ABI 2: a batched forward over
// several sequences, every computation through the backend it was opened with.
#ifndef OXINFER_PLUGINS_MODELS_QWEN35_QWEN35_MODEL_H_
#define OXINFER_PLUGINS_MODELS_QWEN35_QWEN35_MODEL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "oxinfer/sdk/compute.hpp"
#include "oxinfer/sdk/model_plugin.hpp"
#include "plugins/models/qwen35/qwen35_config.h"
#include "plugins/models/qwen35/qwen35_layers.h"
#include "plugins/models/qwen35/qwen35_mtp.h"
#include "plugins/models/qwen35/qwen35_sequences.h"
#include "plugins/models/qwen35/qwen35_weights.h"

namespace oxinfer {
namespace qwen35 {

class Qwen35Model {
 public:
  static int32_t Probe(const sdk::ProbeInput& in, std::string* reason);
  static sdk::StatusOr<std::unique_ptr<Qwen35Model>> Open(const sdk::OpenParams& params);

  sdk::ModelInfo Info() const;
  sdk::Status Forward(const std::vector<sdk::BatchEntry>& batch);
  // 0 (start over), the sequence's length, and, when drafting, any length
  // within the last forward that asked OXI_LOGITS_ALL for it (the DeltaNet
  // states of each of its positions were kept). Other lengths: DeltaNet
  // states cannot be rewound.
  sdk::Status Truncate(int32_t seq, int64_t n_keep);
  // Only the whole of src (or nothing).
  sdk::Status CopySequence(int32_t src, int32_t dst, int64_t n);
  void FreeSequence(int32_t seq);
  // With the MTP head (opened for drafting): qwen35_mtp.h.
  sdk::Status Draft(const sdk::DraftRequest& request);

 private:
  // What a sequence returns to when a verification's tail is dropped: the
  // DeltaNet states before it (block 0) and after each of its n positions.
  struct Rewind {
    int64_t from = -1;  // the length before that forward; -1: none
    int64_t n = 0;
    sdk::Buffer steps;  // [n + 1] blocks of Sequences::states_bytes()
  };
  // Tokens [start, start + n) of batch entry `entry`, computed in one block.
  struct Span {
    size_t entry = 0;
    int64_t start = 0;
    int64_t n = 0;
  };
  // A row of a block whose logits go to `dst`.
  struct LogitRow {
    int64_t row = 0;
    float* dst = nullptr;
  };

  Qwen35Model(const Qwen35Config& config, const sdk::OpenParams& params);
  sdk::Status CheckEntries(const std::vector<sdk::BatchEntry>& batch) const;
  sdk::Status ForwardBlock(const std::vector<sdk::BatchEntry>& batch,
                           const std::vector<Span>& spans);
  // x [rows][hidden] of the block: token embeddings, or the rows given.
  sdk::Status Embed(const std::vector<sdk::BatchEntry>& batch, const std::vector<Span>& spans,
                    const sdk::Tensor& x);
  sdk::Status Logits(const Block& block, const sdk::Tensor& x, const std::vector<LogitRow>& rows);
  // Hands the block's final-norm hidden states to the MTP head.
  sdk::Status KeepHidden(const std::vector<sdk::BatchEntry>& batch, const std::vector<Span>& spans,
                         const Block& block, const sdk::Tensor& x);
  // Saves the states of every entry that may be cut back (OXI_LOGITS_ALL).
  sdk::Status SaveRewinds(const std::vector<sdk::BatchEntry>& batch);

  Qwen35Config config_;
  sdk::Compute cx_;
  Qwen35Weights weights_;
  int64_t context_length_ = 0;
  int64_t prefill_chunk_ = 0;
  int32_t max_sequences_ = 1;
  std::vector<int64_t> type_index_;  // each layer's index among the layers of its type
  std::unique_ptr<Sequences> sequences_;
  std::unique_ptr<MtpHead> mtp_;  // opened for drafting
  std::vector<Rewind> rewinds_;   // per sequence, when drafting
  sdk::Scratch scratch_;
};

}  // namespace qwen35
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_QWEN35_QWEN35_MODEL_H_
