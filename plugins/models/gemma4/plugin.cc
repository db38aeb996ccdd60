// The Gemma 4 model plugin: the SDK's adapter over Gemma4Model writes its
// descriptor, its oxi_model_iface and the only exported symbol.
#include "oxinfer/sdk/model_plugin.hpp"
#include "plugins/models/gemma4/gemma4_model.h"

OXINFER_MODEL_PLUGIN(oxinfer::gemma4::Gemma4Model, "gemma4", "0.2.0",
                     "Gemma 4 text models (E2B, E4B, 31B; gemma4 / gemma4_text checkpoints)")
