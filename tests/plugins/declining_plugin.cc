// A valid plugin that cannot run here: it must be listed as declined.
#include "oxinfer/plugin.hpp"

namespace {
int32_t Score(const oxi_host_services*, char* reason, size_t size) {
  oxinfer::sdk::WriteMessage(reason, size, "needs a device this machine does not have");
  return 0;
}
const void* GetInterface(const oxi_host_services*, char*, size_t) { return nullptr; }
const oxi_plugin kPlugin = {sizeof(oxi_plugin), OXI_ABI_MAJOR, OXI_ABI_MINOR,
                            OXI_PLUGIN_BACKEND, "declining",   "0.1.0",
                            "always declines",  &Score,        &GetInterface};
}  // namespace

OXINFER_DEFINE_PLUGIN(kPlugin)
