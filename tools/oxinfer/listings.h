// --plugins and --devices: what this machine and the plugins found can do.
#ifndef OXINFER_TOOLS_OXINFER_LISTINGS_H_
#define OXINFER_TOOLS_OXINFER_LISTINGS_H_

#include <string>

#include "core/plugin_registry.h"

namespace oxinfer {

// Every plugin file seen: kind, name, version, score, state, and for
// backends their device kind and completeness; the search path first.
void PrintPlugins(const PluginRegistry& registry);

// CPU features, cores and memory, then the usable backends with their
// devices, marking what `device` chooses (or saying why it cannot).
void PrintDevices(const PluginRegistry& registry, const std::string& device);

}  // namespace oxinfer

#endif  // OXINFER_TOOLS_OXINFER_LISTINGS_H_
