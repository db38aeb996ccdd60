// Text to image with a diffusers Stable Diffusion folder (model_index.json):
// CLIP tokenizer and text encoder, classifier-free guidance with a negative
// prompt (the unconditional image first in the batch, as diffusers), the
// Euler or Euler-ancestral sampler, the UNet, the VAE decoder. Mirrors
// StableDiffusionPipeline.__call__ so every stage can be compared with it.
//
// The networks run on the backend. The scheduler's arithmetic and the
// guidance (a few vectors of latents per step) run here on the host: the
// UNet's output is read and the next input written once per step.
#ifndef OXINFER_PLUGINS_MODELS_SD_PIPELINE_H_
#define OXINFER_PLUGINS_MODELS_SD_PIPELINE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "oxinfer/backend_abi.h"
#include "oxinfer/sdk/compute.hpp"
#include "oxinfer/sdk/status.hpp"
#include "plugins/models/sd/activations.h"
#include "plugins/models/sd/clip_text_encoder.h"
#include "plugins/models/sd/clip_tokenizer.h"
#include "plugins/models/sd/layers.h"
#include "plugins/models/sd/scheduler.h"
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
  // Sees every stage (read back from the backend only when set):
  // "tokens_pos" / "tokens_neg" (ids as floats), "emb_pos", "emb_neg",
  // "stepI.unet_in", "stepI.unet_out", "stepI.guided", "stepI.latents",
  // "vae_in", "image_f32" (all channels-last).
  std::function<void(const std::string& name, const HostAct& value)> observer;
  // After each denoising step (steps done, total); false cancels.
  std::function<bool(int, int)> progress;
  // Wall time of each stage: "text encoder", "unet pass I", "vae decoder".
  std::function<void(const std::string& stage, double seconds)> stage_time;
};

// Which networks stay in memory (sd_bench and docs/peers.md measure both).
enum class Residency {
  // Load reads every network's weights and they stay: nothing is read again
  // between images (many images from one pipeline, a server).
  kAll,
  // Load reads the configurations alone; Generate loads each network when its
  // stage begins and frees it when the stage ends (the text encoder once the
  // prompts are encoded, the UNet before the VAE decodes, the VAE at the
  // end). The peak is the largest network with its own activations instead of
  // all the weights with the VAE's; every image reads its weights again
  // (from the page cache: seconds at SD-Turbo's size). The images are the
  // same bit for bit.
  kStage,
};

struct RgbImage {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;  // height rows of width * 3
};

class Pipeline {
 public:
  // The folder's components on `backend` (borrowed; it outlives the
  // pipeline). matrix_dtype: F32, F16 or BF16 to convert the matrices to,
  // OXI_DTYPE_INVALID to keep them as stored. progress (optional) is told
  // each component as it is loaded: (name, done, total).
  static sdk::StatusOr<std::unique_ptr<Pipeline>> Load(
      const std::string& model_dir, const oxi_backend_iface* backend, oxi_dtype matrix_dtype,
      bool use_mmap, const std::function<void(const char*, int, int)>& progress = nullptr,
      Residency residency = Residency::kAll);

  sdk::StatusOr<RgbImage> Generate(const GenerateParams& params);

  // Tokenizes and encodes prompts together: [texts][1][max_len][hidden]
  // (with Residency::kStage only while the text encoder is loaded).
  sdk::StatusOr<Act> EncodePrompts(const Net& net, const std::vector<std::string>& texts,
                                   std::vector<int32_t>* ids = nullptr) const;

  const sdk::Compute& cx() const { return cx_; }
  ActPool* pool() { return &pool_; }
  const ClipTokenizer& tokenizer() const { return tokenizer_; }
  const ClipTextEncoder& text_encoder() const { return text_; }
  const UNet& unet() const { return unet_; }
  const VaeDecoder& vae() const { return vae_; }
  const EulerScheduler& scheduler() const { return scheduler_; }
  Residency residency() const { return residency_; }
  bool is_turbo() const { return turbo_; }
  int default_steps() const { return turbo_ ? 1 : 25; }
  float default_guidance() const { return turbo_ ? 0.f : 7.5f; }
  Sampler default_sampler() const { return turbo_ ? Sampler::kEuler : Sampler::kEulerAncestral; }
  int native_size() const { return static_cast<int>(unet_.sample_size() * vae_.upscale()); }
  // Width and height must be multiples of this: the VAE's factor. The UNet
  // takes any latent size, as diffusers' does (odd sides round up through its
  // stride-2 convolutions and come back to size through its upsamplers).
  int size_multiple() const { return static_cast<int>(vae_.upscale()); }

 private:
  explicit Pipeline(const oxi_backend_iface* backend) : cx_(backend), pool_(&cx_) {}
  sdk::Status CheckRequest(const GenerateParams& p) const;
  // With Residency::kStage: frees the networks' weights and the pool's idle
  // buffers, and hands the freed memory back to the system.
  void ReleaseAll();

  sdk::Compute cx_;
  ActPool pool_;
  ClipTokenizer tokenizer_;
  ClipTextEncoder text_;
  UNet unet_;
  VaeDecoder vae_;
  EulerScheduler scheduler_;
  bool turbo_ = false;
  Residency residency_ = Residency::kAll;
  oxi_dtype matrix_dtype_ = OXI_DTYPE_INVALID;
  bool use_mmap_ = true;
};

// The largest width or height generated.
inline constexpr int kMaxImageSide = 2048;

// Standard normal values from a seeded 64-bit Mersenne twister (Box-Muller),
// the same on every platform.
std::vector<float> GaussianNoise(uint64_t seed, uint64_t stream, int64_t n);

// Whether model_index.json's text describes a Stable Diffusion 1.x / 2.x
// diffusers folder; the reason when it does not.
bool IsStableDiffusionIndex(const std::string& model_index_json, std::string* reason);

}  // namespace sd
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_SD_PIPELINE_H_
