// The plugins a host finds, before or without opening a model (--plugins,
// --devices list them; PluginRecord says what each is).
#ifndef OXINFER_CORE_ENGINE_PLUGINS_H_
#define OXINFER_CORE_ENGINE_PLUGINS_H_

#include <memory>

#include "absl/strings/string_view.h"
#include "core/plugin_registry.h"

namespace oxinfer::engine {

// Scans PluginRegistry::SearchPath(plugin_dirs): the installation's folders,
// then plugin_dirs (colon-separated), then OXINFER_PLUGIN_PATH.
std::unique_ptr<PluginRegistry> DiscoverPlugins(absl::string_view plugin_dirs);

}  // namespace oxinfer::engine

#endif  // OXINFER_CORE_ENGINE_PLUGINS_H_
