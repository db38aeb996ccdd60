// The host-services table (plugin_abi.h) that the core hands to every plugin:
// logging, the process-wide thread pool, CPU features, aligned memory.
#ifndef OXINFER_CORE_HOST_SERVICES_H_
#define OXINFER_CORE_HOST_SERVICES_H_

#include "oxinfer/plugin_abi.h"

namespace oxinfer {

// The one table of this process; its functions forward to the core.
const oxi_host_services* HostServices();

// Messages plugins log at or above this level reach stderr (default: warning).
void SetPluginLogLevel(int level);

}  // namespace oxinfer

#endif  // OXINFER_CORE_HOST_SERVICES_H_
