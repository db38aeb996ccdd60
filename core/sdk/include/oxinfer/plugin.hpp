// oxinfer plugin SDK: a header-only C++ layer over the C ABI (plugin_abi.h).
//
// For plugin authors: write ordinary C++ (exceptions allowed inside) and let
// the adapters write the C tables, the descriptor and the error plumbing:
//   sdk/status.hpp          Status, StatusOr, OXI_RETURN_IF_ERROR, OXI_ASSIGN_OR_RETURN
//   sdk/common.hpp          Guard, messages, host services, logging, thread pool, files
//   sdk/json.hpp            config.json and friends, through the host's parser
//   sdk/weights.hpp         safetensors checkpoints, through the host's reader
//   sdk/compute.hpp         buffers, tensors and every backend operation (for models)
//   sdk/model_plugin.hpp    ModelPlugin<T>, OXINFER_MODEL_PLUGIN
//   sdk/backend_plugin.hpp  BackendPlugin<T>, OXINFER_BACKEND_PLUGIN
// Needs only the C++17 standard library, so a third-party plugin builds
// against these headers alone.
#ifndef OXINFER_PLUGIN_HPP_
#define OXINFER_PLUGIN_HPP_

#include "oxinfer/plugin_abi.h"
#include "oxinfer/sdk/backend_plugin.hpp"
#include "oxinfer/sdk/common.hpp"
#include "oxinfer/sdk/compute.hpp"
#include "oxinfer/sdk/json.hpp"
#include "oxinfer/sdk/model_plugin.hpp"
#include "oxinfer/sdk/status.hpp"
#include "oxinfer/sdk/weights.hpp"

// Exports the plugin's single entry symbol, returning `descriptor` (a static
// oxi_plugin), for plugins that write their descriptor by hand. Use once per
// shared object.
#define OXINFER_DEFINE_PLUGIN(descriptor) \
  extern "C" OXI_EXPORT const oxi_plugin* oxinfer_plugin_entry(void) { return &(descriptor); }

#endif  // OXINFER_PLUGIN_HPP_
