// Gemma 4's audio features, as transformers' Gemma4AudioFeatureExtractor
// computes them: the clip cut to max_samples (30 s) and zero-padded to a
// multiple of 128 samples, frame_length / 2 zeros in front (semicausal), frames
// of frame_length + 1 samples every hop_length (the last sample only decides
// the mask), a periodic Hann window, |rfft| over fft_length, an HTK mel filter
// bank without normalisation, log(mel + mel_floor); frames that reach into
// the padding are masked and zeroed.
#ifndef OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_AUDIO_FEATURES_H_
#define OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_AUDIO_FEATURES_H_

#include <cstdint>
#include <vector>

#include "oxinfer/sdk/json.hpp"
#include "oxinfer/sdk/status.hpp"

namespace oxinfer {
namespace gemma4 {

struct AudioFeatureConfig {
  int feature_size = 128;  // mel bins
  int sampling_rate = 16000;
  int frame_length = 320;
  int hop_length = 160;
  int fft_length = 512;
  double min_frequency = 0.0;
  double max_frequency = 8000.0;
  double mel_floor = 1e-3;
  double input_scale_factor = 1.0;
  double preemphasis = 0.0;
  bool preemphasis_htk_flavor = true;
  int64_t max_samples = 480000;  // the processor's max_length (30 s)
  int pad_to_multiple_of = 128;
  std::vector<double> per_bin_mean, per_bin_stddev;  // empty: none
};

// processor_config.json's "feature_extractor" (or a preprocessor_config.json
// root); absent fields take the extractor's defaults; dither is refused.
sdk::StatusOr<AudioFeatureConfig> ParseAudioFeatureConfig(const sdk::Json& c);

struct AudioFeatures {
  int64_t n_frames = 0;
  int n_mel = 0;
  std::vector<float> features;  // [n_frames][n_mel], zero where masked
  std::vector<uint8_t> mask;    // [n_frames]: 1 for frames of real audio
  int64_t n_valid = 0;          // frames with mask 1
};

// Mono samples at cfg.sampling_rate, in [-1, 1].
sdk::StatusOr<AudioFeatures> ExtractLogMel(const float* samples, int64_t n,
                                           const AudioFeatureConfig& cfg);

}  // namespace gemma4
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_AUDIO_FEATURES_H_
