#include "core/engine/plugins.h"

#include "oxinfer/backend_abi.h"

namespace oxinfer::engine {

DiscoveredPlugins DiscoverPlugins(absl::string_view plugin_dirs) {
  DiscoveredPlugins found;
  found.search_path = PluginRegistry::SearchPath(plugin_dirs);
  found.registry = std::make_unique<PluginRegistry>();
  found.registry->ScanDirectories(found.search_path);
  return found;
}

BackendDescription DescribeBackend(const PluginRecord& record) {
  const auto* iface = static_cast<const oxi_backend_iface*>(record.iface);
  BackendDescription d;
  d.plugin = record.name;
  if (iface == nullptr) return d;
  d.device_name = iface->device_name != nullptr ? iface->device_name : "";
  d.device_kind = iface->device_kind;
  d.complete = (iface->flags & OXI_BACKEND_COMPLETE) != 0;
  d.host_memory = (iface->flags & OXI_BACKEND_HOST_MEMORY) != 0;
  if (OXI_HAS_FIELD(iface, oxi_backend_iface, device_info) && iface->device_info != nullptr) {
    oxi_device_info info = {};
    info.struct_size = sizeof info;
    // Zeroed first: fields a smaller (older) plugin struct lacks read as unknown.
    if (iface->device_info(iface->self, &info) == OXI_OK) {
      if (info.name != nullptr) d.device = info.name;
      if (info.driver != nullptr) d.driver = info.driver;
      d.compute_units = info.compute_units;
      d.memory_total = info.memory_total;
      d.memory_free = info.memory_free;
    }
  }
  return d;
}

const char* DeviceKindName(int32_t kind) {
  switch (kind) {
    case OXI_DEVICE_CPU:
      return "cpu";
    case OXI_DEVICE_GPU:
      return "gpu";
    case OXI_DEVICE_ACCEL:
      return "accelerator";
    default:
      return "unknown";
  }
}

}  // namespace oxinfer::engine
