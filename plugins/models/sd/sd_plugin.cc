// The Stable Diffusion model plugin's entry: liboxinfer_sd.so.
#include "oxinfer/sdk/model_plugin.hpp"
#include "plugins/models/sd/sd_model.h"

OXINFER_MODEL_PLUGIN(oxinfer::sd::SdModel, "sd", "0.2.0",
                     "Stable Diffusion 1.x / 2.x / SD-Turbo text to image (diffusers folders)")
