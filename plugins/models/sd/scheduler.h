// diffusers' EulerDiscreteScheduler and EulerAncestralDiscreteScheduler
// (s_churn = 0, linear sigma interpolation, final sigma zero), for epsilon and
// v-prediction models, with the "linspace", "leading" and "trailing"
// timestep spacings. Arithmetic follows diffusers' float32 / float64 mix so
// that sigmas and timesteps agree to the last bit or so.
#ifndef OXINFER_PLUGINS_MODELS_SD_SCHEDULER_H_
#define OXINFER_PLUGINS_MODELS_SD_SCHEDULER_H_

#include <string>
#include <vector>

#include "oxinfer/sdk/json.hpp"
#include "oxinfer/sdk/status.hpp"

namespace oxinfer {
namespace sd {

enum class Sampler { kEuler, kEulerAncestral };

class EulerScheduler {
 public:
  // From scheduler_config.json's object (any SD scheduler class: only the
  // beta schedule, prediction type, spacing and offset are used).
  static sdk::StatusOr<EulerScheduler> FromConfig(const sdk::Json& cfg);

  sdk::Status SetTimesteps(int steps);
  // Overrides the config's spacing ("linspace", "leading", "trailing").
  sdk::Status SetSpacing(const std::string& spacing);

  const std::vector<float>& timesteps() const { return timesteps_; }
  const std::vector<float>& sigmas() const { return sigmas_; }  // steps + 1, last 0
  float init_noise_sigma() const { return init_noise_sigma_; }
  bool v_prediction() const { return v_prediction_; }
  const std::string& spacing() const { return spacing_; }

  // x / sqrt(sigma_i^2 + 1), in place.
  void ScaleInput(int i, float* x, int64_t n) const;
  // One step from the model output; `noise` (Euler-ancestral only) has n values.
  void Step(Sampler sampler, int i, const float* model_out, const float* noise, float* sample,
            int64_t n) const;
  // Euler-ancestral's noise scale of step i (0 for the last step).
  float SigmaUp(int i) const;

 private:
  int num_train_ = 1000;
  int steps_offset_ = 0;
  bool v_prediction_ = false;
  std::string spacing_ = "linspace";
  std::vector<float> all_sigmas_;  // per training timestep
  std::vector<float> timesteps_, sigmas_;
  float init_noise_sigma_ = 1.f;
};

}  // namespace sd
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_SD_SCHEDULER_H_
