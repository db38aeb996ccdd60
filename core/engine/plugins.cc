#include "core/engine/plugins.h"

namespace oxinfer::engine {

std::unique_ptr<PluginRegistry> DiscoverPlugins(absl::string_view plugin_dirs) {
  auto registry = std::make_unique<PluginRegistry>();
  registry->ScanDirectories(PluginRegistry::SearchPath(plugin_dirs));
  return registry;
}

}  // namespace oxinfer::engine
