// Text to image with a diffusers Stable Diffusion folder (model_index.json):
// CLIP tokenizer and text encoder, classifier-free guidance with a negative
// prompt (the unconditional batch first, as diffusers), the Euler or
// Euler-ancestral sampler, the UNet, the VAE decoder. Mirrors
// StableDiffusionPipeline.__call__ so every stage can be compared with it.
#ifndef OXINFER_PLUGINS_MODELS_SD_PIPELINE_H_
#define OXINFER_PLUGINS_MODELS_SD_PIPELINE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "plugins/models/sd/clip_text_encoder.h"
#include "plugins/models/sd/clip_tokenizer.h"
#include "plugins/models/sd/scheduler.h"
#include "plugins/models/sd/sd_ops.h"
#include "plugins/models/sd/unet.h"
#include "plugins/models/sd/vae_decoder.h"

namespace oxinfer {
namespace sd {

struct GenerateParams {
  std::string prompt;
  std::string negative_prompt;
  int steps = 0;                                // 0: the model's default
  std::optional<float> guidance;                // unset: the model's default; <= 1: no guidance
  std::optional<Sampler> sampler;               // unset: the model's default
  std::optional<std::string> timestep_spacing;  // unset: scheduler_config.json's
  int width = 0, height = 0;                    // 0: the UNet's sample_size times the VAE's scale
  uint64_t seed = 0;
  // Tests: the initial noise [1][h/8][w/8][4] channels-last (before the
  // scheduler's init sigma) and Euler-ancestral's noise of each step, instead
  // of the seeded generator.
  const std::vector<float>* initial_noise = nullptr;
  std::function<std::vector<float>(int step)> step_noise;
  // Sees every stage: "tokens_pos"/"tokens_neg" (ids as floats), "emb_pos",
  // "emb_neg", "stepI.unet_in", "stepI.unet_out", "stepI.guided",
  // "stepI.latents", "vae_in", "image_f32" (all channels-last).
  std::function<void(const std::string& name, const Act& value)> observer;
  // Progress after each denoising step (step index, total).
  std::function<void(int, int)> progress;
  // Wall time of each stage, for --profile: "text encoder", "unet pass I",
  // "vae decoder".
  std::function<void(const std::string& stage, double seconds)> stage_time;
};

struct Image {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;  // height rows of width * 3
};

class Pipeline {
 public:
  // progress (optional) is told each component as it is loaded: (name, done,
  // total). weight_dtype: the dtype the matmul / conv weights are held in
  // (F32, F16, BF16; OXI_DTYPE_INVALID: f16 / bf16 files as stored).
  static absl::StatusOr<std::unique_ptr<Pipeline>> Load(
      const std::string& model_dir,
      const std::function<void(const char*, int, int)>& progress = nullptr,
      oxi_dtype weight_dtype = OXI_DTYPE_F32);

  absl::StatusOr<Image> Generate(const Ops& ops, const GenerateParams& params) const;

  const ClipTokenizer& tokenizer() const { return tokenizer_; }
  const ClipTextEncoder& text_encoder() const { return text_; }
  const UNet& unet() const { return unet_; }
  const VaeDecoder& vae() const { return vae_; }
  bool is_turbo() const { return turbo_; }
  int default_steps() const { return turbo_ ? 1 : 25; }
  float default_guidance() const { return turbo_ ? 0.f : 7.5f; }
  Sampler default_sampler() const { return turbo_ ? Sampler::kEuler : Sampler::kEulerAncestral; }

  // Encodes one prompt: [1][1][max_len][hidden].
  absl::StatusOr<Act> EncodePrompt(const Ops& ops, const std::string& text,
                                   std::vector<int32_t>* ids = nullptr) const;

 private:
  Pipeline() = default;
  ClipTokenizer tokenizer_;
  ClipTextEncoder text_;
  UNet unet_;
  VaeDecoder vae_;
  nlohmann::json scheduler_cfg_;
  int64_t sample_size_ = 64;
  bool turbo_ = false;
};

// Standard normal values from a seeded 64-bit Mersenne twister (Box-Muller),
// the same on every platform.
std::vector<float> GaussianNoise(uint64_t seed, uint64_t stream, int64_t n);

// Recognises a Stable Diffusion 1.x / 2.x diffusers folder from its
// model_index.json text; the reason when it is not one.
bool IsStableDiffusionIndex(const std::string& model_index_json, std::string* reason);

}  // namespace sd
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_SD_PIPELINE_H_
