// A checkpoint opened through the model plugin whose probe claims its folder,
// and the C++ face of that plugin's oxi_model_iface: the batched forward over
// sequences, sequence editing, and image generation.
//
// Not thread-safe: the model ABI allows one thread at a time, so every caller
// holds the engine's model lock (see engine.h).
#ifndef OXINFER_CORE_ENGINE_MODEL_H_
#define OXINFER_CORE_ENGINE_MODEL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/engine/image.h"
#include "core/engine/media.h"
#include "core/engine/model_info.h"
#include "core/plugin_registry.h"
#include "oxinfer/model_abi.h"

namespace oxinfer::engine {

// The largest config file (config.json, generation_config.json, ...) the
// engine reads.
inline constexpr uint64_t kMaxConfigFileBytes = uint64_t{16} << 20;

// What oxi_model_open_params carries besides the folder and the backend.
struct ModelOpenOptions {
  oxi_dtype weight_dtype = OXI_DTYPE_INVALID;  // as stored; Q8_0 / Q4_0: quantised at load
  bool use_mmap = false;
  int64_t context_length = 0;  // 0: the model's
  int32_t prefill_chunk = 0;   // 0: the plugin's default
  int32_t max_sequences = 1;   // sequences the engine keeps at once
  bool draft = false;          // the engine will call Draft (OXI_MODEL_DRAFT)
  // A separate drafter checkpoint (ABI 2.3 draft_dir; "": none). A plugin
  // built for an older ABI is refused when one is given.
  std::string draft_dir;
  // Loading progress: `done` of `total` units in the stage `what`.
  std::function<void(double done, double total, const std::string& what)> progress;
  // --save-quantized: every weight the model keeps, as it keeps it
  // (oxi_model_open_params.record_weight); an error fails the open.
  std::function<absl::Status(const oxi_weight_tensor& tensor)> record_weight;
};

class Model {
 public:
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  // Reads model_dir/config.json (or model_index.json for a diffusers folder),
  // asks every loaded model plugin to probe it, and opens the checkpoint with
  // the highest-scoring one on `backend` (borrowed; it must outlive the
  // Model). Errors name the folder and, when no plugin claims it, what each
  // plugin said.
  static absl::StatusOr<std::unique_ptr<Model>> Open(const PluginRegistry& registry,
                                                     const std::string& model_dir,
                                                     const oxi_backend_iface* backend,
                                                     const ModelOpenOptions& options);

  const std::string& plugin_name() const { return plugin_name_; }
  const ModelInfo& info() const { return info_; }

  // One forward over entries of distinct sequences. After a failure the
  // sequences of the batch are undefined: free them before reuse.
  absl::Status Forward(absl::Span<const oxi_batch_entry* const> entries);
  // Keeps the first n_keep positions of a sequence.
  absl::Status TruncateSequence(int32_t seq, int64_t n_keep);
  // Empties a sequence.
  void FreeSequence(int32_t seq);

  // Whether the checkpoint drafts its own next tokens (OXI_MODEL_DRAFT).
  bool can_draft() const;
  // n greedy drafts of the model's own head after `next_token` (sampled,
  // not yet fed) on `seq`; logits / hidden ([n][vocab], [n][hidden]) when
  // not null. FAILED_PRECONDITION for a model without OXI_MODEL_DRAFT.
  absl::Status Draft(int32_t seq, int32_t next_token, int32_t n, int32_t* tokens,
                     float* logits = nullptr, float* hidden = nullptr);

  // FAILED_PRECONDITION for models without OXI_MODEL_IMAGE_OUTPUT.
  absl::StatusOr<Image> GenerateImage(const oxi_image_request& request);

  // The soft tokens of an image (max_soft_tokens 0: the model's default
  // budget) or an audio clip; FAILED_PRECONDITION for models that take none.
  absl::StatusOr<EncodedMedia> EncodeImage(const Image& image, int32_t max_soft_tokens);
  absl::StatusOr<EncodedMedia> EncodeAudio(const Audio& audio);

 private:
  Model() = default;
  absl::StatusOr<EncodedMedia> Encode(const oxi_media_input& input, const char* what);

  const oxi_model_iface* iface_ = nullptr;
  oxi_model* model_ = nullptr;
  std::string plugin_name_;
  ModelInfo info_;
};

}  // namespace oxinfer::engine

#endif  // OXINFER_CORE_ENGINE_MODEL_H_
