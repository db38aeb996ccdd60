// The Gemma 4 text model behind the model ABI (sdk::ModelPlugin): checkpoint
// recognition, loading, and the sequence operations on top of the batched
// decoder step (gemma4_forward.h).
//
// A forward splits its entries into steps of at most prefill_chunk rows in
// all (no entry contributes more than prefill_chunk positions to a step, which
// is what the rings are sized for). Positions are always consecutive: explicit
// positions are accepted only where they equal the sequence's next ones.
//
// With an assistant (open_params.draft_dir: gemma4_assistant.h) every
// forward also keeps the final-norm hidden states of its logit rows, which
// drafting starts from.
//
// Truncation and prefix copies keep the caches as they are unless a ring has
// lost positions the kept window needs; then the sequence is recomputed from
// its token history, inside the plugin. Positions fed by embedding rows are
// not in that history: a sequence that needs such a rebuild over one of them
// is refused (FAILED_PRECONDITION) and left as it was.
#ifndef OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_MODEL_H_
#define OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_MODEL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "oxinfer/sdk/compute.hpp"
#include "oxinfer/sdk/model_plugin.hpp"
#include "oxinfer/sdk/status.hpp"
#include "plugins/models/gemma4/gemma4_assistant.h"
#include "plugins/models/gemma4/gemma4_audio.h"
#include "plugins/models/gemma4/gemma4_audio_features.h"
#include "plugins/models/gemma4/gemma4_config.h"
#include "plugins/models/gemma4/gemma4_forward.h"
#include "plugins/models/gemma4/gemma4_image_preprocess.h"
#include "plugins/models/gemma4/gemma4_sequences.h"
#include "plugins/models/gemma4/gemma4_vision.h"
#include "plugins/models/gemma4/gemma4_weights.h"

namespace oxinfer {
namespace gemma4 {

class Gemma4Model {
 public:
  static int32_t Probe(const sdk::ProbeInput& in, std::string* reason);
  static sdk::StatusOr<std::unique_ptr<Gemma4Model>> Open(const sdk::OpenParams& params);

  sdk::ModelInfo Info() const;
  sdk::Status Forward(const std::vector<sdk::BatchEntry>& batch);
  sdk::Status Truncate(int32_t seq, int64_t n_keep);
  sdk::Status CopySequence(int32_t src, int32_t dst, int64_t n);
  void FreeSequence(int32_t seq);
  // An image's soft tokens between <|image> and <image|>, or a clip's between
  // <|audio> and <audio|> (model ABI 2.1).
  sdk::StatusOr<sdk::MediaOutput> EncodeMedia(const sdk::MediaInput& in);
  // Greedy drafts of the assistant opened from draft_dir (model ABI 2.3).
  sdk::Status Draft(const sdk::DraftRequest& r);

 private:
  explicit Gemma4Model(const oxi_backend_iface* backend) : cx_(backend, "gemma4") {}
  sdk::Status CheckEntry(const sdk::BatchEntry& e, int index) const;
  // The entries' positions, step by step.
  sdk::Status Run(const std::vector<sdk::BatchEntry>& batch);
  // Recomputes dst's caches from `history` (src's first tokens): a truncate
  // or a prefix copy the rings cannot serve.
  sdk::Status Rebuild(int32_t src, int32_t dst, int64_t n);
  // The vision tower and the image processor's settings, when config.json has
  // a vision_config.
  sdk::Status OpenVision(const sdk::OpenParams& p, const std::string& config_text);
  // The audio tower and the feature extractor's settings, when config.json
  // has an audio_config.
  sdk::Status OpenAudio(const sdk::OpenParams& p, const std::string& config_text);
  sdk::StatusOr<sdk::MediaOutput> EncodeAudio(const sdk::MediaInput& in);
  // `middle` soft-token rows of hidden_size between the `open` and `close`
  // tokens, the rows in place of the `placeholder` ids.
  sdk::MediaOutput Wrap(const char* open, const char* placeholder, const char* close,
                        const std::vector<float>& middle) const;
  int32_t SpecialToken(const char* role) const;

  Gemma4Config cfg_;
  sdk::Compute cx_;
  Gemma4Weights weights_;
  std::unique_ptr<SequenceStore> store_;
  std::unique_ptr<Decoder> decoder_;
  std::unique_ptr<VisionTower> vision_;  // null: no vision tower
  ImageProcessorConfig image_cfg_;
  std::unique_ptr<AudioTower> audio_;     // null: no audio tower
  std::unique_ptr<Assistant> assistant_;  // null: not opened for drafting
  AudioFeatureConfig audio_cfg_;
  int64_t chunk_ = 0;
  int64_t context_ = 0;
  int32_t max_sequences_ = 1;
};

}  // namespace gemma4
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_MODEL_H_
