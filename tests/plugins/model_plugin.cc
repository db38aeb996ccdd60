// A plugin of another kind (a model that claims nothing), for --device=<its
// name>: refused as not a backend.
#include <cstring>

#include "oxinfer/plugin.hpp"

namespace {
int32_t Score(const oxi_host_services*, char*, size_t) { return 1; }
const void* GetInterface(const oxi_host_services*, char*, size_t) {
  static oxi_model_iface table = [] {
    oxi_model_iface t;
    std::memset(&t, 0, sizeof t);
    t.struct_size = sizeof t;
    return t;
  }();
  return &table;
}
const oxi_plugin kPlugin = {sizeof(oxi_plugin),
                            OXI_ABI_MAJOR,
                            OXI_ABI_MINOR,
                            OXI_PLUGIN_MODEL,
                            "test-model",
                            "0.1.0",
                            "a model plugin that claims nothing",
                            &Score,
                            &GetInterface};
}  // namespace

OXINFER_DEFINE_PLUGIN(kPlugin)
