// A plugin built for ABI 1.1: the host must refuse it, naming both versions,
// reading nothing past the three fields that never move.
#include "oxinfer/plugin.hpp"

namespace {
int32_t Score(const oxi_host_services*, char*, size_t) { return 100; }
const void* GetInterface(const oxi_host_services*, char*, size_t) { return nullptr; }
const oxi_plugin kPlugin = {
    sizeof(oxi_plugin), 1, 1, OXI_PLUGIN_BACKEND, "old-backend", "1.1.0", "built for ABI 1", &Score,
    &GetInterface};
}  // namespace

OXINFER_DEFINE_PLUGIN(kPlugin)
