// A plugin built for a future ABI major (3.0): the host must refuse it by name.
#include "oxinfer/plugin.hpp"

namespace {
int32_t Score(const oxi_host_services*, char*, size_t) { return 100; }
const void* GetInterface(const oxi_host_services*, char*, size_t) { return nullptr; }
const oxi_plugin kPlugin = {sizeof(oxi_plugin),
                            OXI_ABI_MAJOR + 1,
                            0,
                            OXI_PLUGIN_BACKEND,
                            "future-backend",
                            "9.0.0",
                            "built for ABI 3",
                            &Score,
                            &GetInterface};
}  // namespace

OXINFER_DEFINE_PLUGIN(kPlugin)
