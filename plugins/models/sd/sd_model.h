// The Stable Diffusion model as the SDK's ModelPlugin<T> wants it: probe on
// model_index.json, open a diffusers folder on the host's backend, generate
// images (a text-to-image model has no forward).
#ifndef OXINFER_PLUGINS_MODELS_SD_SD_MODEL_H_
#define OXINFER_PLUGINS_MODELS_SD_SD_MODEL_H_

#include <memory>
#include <string>

#include "oxinfer/sdk/model_plugin.hpp"
#include "oxinfer/sdk/status.hpp"
#include "plugins/models/sd/pipeline.h"

namespace oxinfer {
namespace sd {

class SdModel {
 public:
  static int32_t Probe(const sdk::ProbeInput& in, std::string* reason);
  static sdk::StatusOr<std::unique_ptr<SdModel>> Open(const sdk::OpenParams& params);
  sdk::ModelInfo Info() const;
  sdk::StatusOr<sdk::Image> GenerateImage(const oxi_image_request& request);

 private:
  explicit SdModel(std::unique_ptr<Pipeline> p) : pipeline_(std::move(p)) {}
  std::unique_ptr<Pipeline> pipeline_;
};

// OXINFER_SD_RESIDENCY=stage: each network loaded for its stage only
// (Residency::kStage); otherwise (the default) every network stays loaded.
Residency ResidencyWanted();

// The request as the pipeline's parameters (unknown samplers refused).
sdk::StatusOr<GenerateParams> ParamsFromRequest(const oxi_image_request& request);

}  // namespace sd
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_SD_SD_MODEL_H_
