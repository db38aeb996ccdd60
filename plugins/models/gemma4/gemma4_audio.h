// Gemma 4's audio tower and its embedder, as transformers' Gemma4AudioModel +
// Gemma4MultimodalEmbedder compute them, through backend operations: two
// stride-2 3x3 convolutions over (frames x mel bins), each with a layer norm
// over channels and ReLU, flattened per frame and projected; conformer layers
// (half-step feed-forward, chunked local self-attention with relative
// position logits and a softcap, a light convolution block (GLU, causal
// depthwise conv, RMS norm, SiLU), half-step feed-forward, RMS norm); the
// output projection; an RMS norm without scale and the projection to the text
// model's width.
//
// Only the clip's valid frames are computed: the reference masks the padding
// before each subsampling convolution and its attention never looks ahead
// past the mask, so the valid soft tokens do not depend on what follows.
#ifndef OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_AUDIO_H_
#define OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_AUDIO_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "oxinfer/sdk/compute.hpp"
#include "oxinfer/sdk/json.hpp"
#include "oxinfer/sdk/status.hpp"
#include "oxinfer/sdk/weights.hpp"
#include "plugins/models/gemma4/gemma4_clipped_linear.h"

namespace oxinfer {
namespace gemma4 {

struct AudioConfig {
  int hidden_size = 0;
  int num_layers = 0;
  int num_heads = 0;
  int conv_channels[2] = {0, 0};  // subsampling_conv_channels
  int conv_kernel_size = 0;       // the light convolution's taps
  double residual_weight = 0.5;
  int chunk_size = 0;
  int context_left = 0;
  int context_right = 0;
  double logit_cap = 0.0;
  bool use_clipped_linears = false;
  double rms_norm_eps = 1e-6;
  double gradient_clipping = 1e10;
  int output_dims = 0;
  int text_hidden_size = 0;  // the embedder's output width
};

// config.json's audio_config (absent or null: no tower, *present false).
sdk::Status ParseAudioConfig(const sdk::Json& root, AudioConfig* out, bool* present);

// Soft tokens of a clip of `frames` valid feature frames: two stride-2
// convolutions, ceil(ceil(frames / 2) / 2), as the processor counts them.
int64_t AudioSoftTokens(int64_t frames);

struct AudioFeedForward {
  ClippedLinear up, down;
  sdk::OwnedTensor pre_norm, post_norm;
};

struct AudioLayerWeights {
  AudioFeedForward ff1, ff2;
  ClippedLinear q, k, v, post;
  sdk::OwnedTensor q_scale;  // [1][hidden]: softplus(per_dim_scale), per head
  sdk::OwnedTensor rel_k;    // [n_rel][hidden]: relative_k_proj of the positions
  ClippedLinear conv_start, conv_end;
  sdk::OwnedTensor conv_w;  // [hidden][kernel] f32
  sdk::OwnedTensor conv_pre_norm, conv_norm;
  sdk::OwnedTensor norm_pre_attn, norm_post_attn, norm_out;
};

class AudioTower {
 public:
  // The tower under model.audio_tower.* and the embedder model.embed_audio.*,
  // linear layers held as `dtype` (OXI_DTYPE_INVALID: as stored), for
  // features of n_mel bins.
  static sdk::StatusOr<std::unique_ptr<AudioTower>> Load(const sdk::Compute& cx,
                                                         const sdk::Weights& file,
                                                         const AudioConfig& cfg, int n_mel,
                                                         oxi_dtype dtype);

  // The soft tokens of a clip's valid log-mel frames [frames][n_mel]:
  // [AudioSoftTokens(frames)][text_hidden].
  sdk::StatusOr<std::vector<float>> Encode(const float* features, int64_t frames);

  const AudioConfig& config() const { return cfg_; }

 private:
  AudioTower(const sdk::Compute& cx, const AudioConfig& cfg, int n_mel)
      : cx_(cx), cfg_(cfg), n_mel_(n_mel), scratch_(&cx_), temp_(&cx_) {}
  // Activations of one clip, allocated once for all layers.
  struct Buffers {
    sdk::Tensor h, q, k, v, att, wide, wide2, glu, conv_state;
  };
  sdk::Status Linear(const ClippedLinear& l, const sdk::Tensor& x, const sdk::Tensor& y);
  sdk::Status Clip(const sdk::Tensor& x, const sdk::Tensor& y);
  // x += residual_weight * post_norm(clip(down(silu(up(pre_norm(clip(x))))))).
  sdk::Status FeedForward(const AudioFeedForward& f, const sdk::Tensor& x, const Buffers& b);
  sdk::Status Layer(const AudioLayerWeights& l, const sdk::Tensor& x, const Buffers& b);
  // One subsampling block: conv (3x3, stride 2, pad 1), layer norm, ReLU.
  sdk::StatusOr<sdk::Tensor> Subsample(const sdk::Tensor& x, int64_t frames, int64_t bins,
                                       int which);

  const sdk::Compute& cx_;
  const AudioConfig cfg_;
  const int n_mel_;
  sdk::Scratch scratch_;                       // the clip's activations
  sdk::Scratch temp_;                          // clamped inputs of one layer
  sdk::OwnedTensor conv_w_[2], conv_norm_[2];  // [cout][9 cin] in (ky, kx, ci) order
  sdk::OwnedTensor input_proj_;                // [hidden][bins / 4 * channels[1]]
  std::vector<AudioLayerWeights> layers_;
  sdk::OwnedTensor output_proj_, output_bias_;  // [output_dims][hidden], [1][output_dims]
  sdk::OwnedTensor projection_;                 // [text_hidden][output_dims]
};

}  // namespace gemma4
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_AUDIO_H_
