// The plugins a host finds, and what it lists about them (--plugins,
// --devices) before or without opening a model.
#ifndef OXINFER_CORE_ENGINE_PLUGINS_H_
#define OXINFER_CORE_ENGINE_PLUGINS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/plugin_registry.h"

namespace oxinfer::engine {

struct DiscoveredPlugins {
  std::vector<std::string> search_path;  // the folders scanned, in order
  std::unique_ptr<PluginRegistry> registry;
};

// Scans plugin_dirs (colon-separated, searched first), then
// OXINFER_PLUGIN_PATH, the executable's folder and its ../lib/oxinfer/plugins.
DiscoveredPlugins DiscoverPlugins(absl::string_view plugin_dirs);

// A loaded backend plugin as its table and device_info describe it.
struct BackendDescription {
  std::string plugin;        // the plugin's name ("cpu-avx2")
  std::string device_name;   // the table's short name ("cpu", "vulkan0")
  int32_t device_kind = 0;   // oxi_device_kind
  bool complete = false;     // OXI_BACKEND_COMPLETE: runs every op (a CPU reference)
  bool host_memory = false;  // OXI_BACKEND_HOST_MEMORY
  // From device_info() when the backend offers it ("" / 0: not told).
  std::string device;
  std::string driver;
  int32_t compute_units = 0;
  uint64_t memory_total = 0, memory_free = 0;
};

// `record` must be a loaded backend plugin.
BackendDescription DescribeBackend(const PluginRecord& record);

// "cpu", "gpu", "accelerator".
const char* DeviceKindName(int32_t kind);

}  // namespace oxinfer::engine

#endif  // OXINFER_CORE_ENGINE_PLUGINS_H_
