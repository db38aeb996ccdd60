// The Qwen 3.5 / 3.6 / 3.8 dense model plugin: its descriptor and entry symbol.
#include "oxinfer/sdk/model_plugin.hpp"
#include "plugins/models/qwen35/qwen35_model.h"

OXINFER_MODEL_PLUGIN(oxinfer::qwen35::Qwen35Model, "qwen35", "0.2.0",
                     "Qwen 3.5 / 3.6 / 3.8 dense text models (Gated DeltaNet + gated attention)")
