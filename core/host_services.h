// The host-services table (abi_common.h) that the core hands to every plugin:
// logging, the process-wide thread pool, CPU features, aligned memory
// (host_services.cc), files, JSON and safetensors (core/host/*.h).
#ifndef OXINFER_CORE_HOST_SERVICES_H_
#define OXINFER_CORE_HOST_SERVICES_H_

#include "oxinfer/abi_common.h"

namespace oxinfer {

// The one table of this process; its functions forward to the core.
const oxi_host_services* HostServices();

// Messages plugins log at or above this level reach stderr (default: warning).
void SetPluginLogLevel(int level);

}  // namespace oxinfer

#endif  // OXINFER_CORE_HOST_SERVICES_H_
