// Finds, validates, scores and holds the plugins of this process.
//
// A plugin is a shared object named liboxinfer_<anything>.so exporting
// oxinfer_plugin_entry (plugin_abi.h). Search order: the --plugin-dir
// folders, then OXINFER_PLUGIN_PATH, then the executable's folder and its
// ../lib/oxinfer/plugins. The first plugin of a given name wins; later ones
// are listed as shadowed. Nothing a plugin file does wrong stops the host:
// the file is recorded as rejected with the reason and the scan goes on.
#ifndef OXINFER_CORE_PLUGIN_REGISTRY_H_
#define OXINFER_CORE_PLUGIN_REGISTRY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "oxinfer/plugin_abi.h"

namespace oxinfer {

enum class PluginState {
  kLoaded,    // score > 0 and its interface obtained: usable
  kDeclined,  // a valid plugin that cannot run here (score 0), with its reason
  kRejected,  // not usable at all: not a shared object, no entry, ABI mismatch...
};

const char* PluginStateName(PluginState state);
const char* PluginKindName(int32_t kind);

struct PluginRecord {
  std::string path;
  int32_t kind = 0;  // oxi_plugin_kind; 0 when unknown (rejected early)
  std::string name;
  std::string version;
  std::string description;
  uint32_t abi_major = 0, abi_minor = 0;
  int32_t score = 0;
  PluginState state = PluginState::kRejected;
  std::string reason;  // why declined or rejected
  const oxi_plugin* plugin = nullptr;
  const void* iface = nullptr;  // the kind's interface when loaded
};

class PluginRegistry {
 public:
  PluginRegistry();
  ~PluginRegistry();  // keeps plugins mapped until the end (see .cc)
  PluginRegistry(const PluginRegistry&) = delete;
  PluginRegistry& operator=(const PluginRegistry&) = delete;

  // The folders searched, in order: plugin_dirs (colon-separated, may be
  // empty), OXINFER_PLUGIN_PATH, the executable's folder, its
  // ../lib/oxinfer/plugins. Duplicates and missing folders are dropped.
  static std::vector<std::string> SearchPath(absl::string_view plugin_dirs);

  // Loads every liboxinfer_*.so of each folder, in name order.
  void ScanDirectories(const std::vector<std::string>& dirs);

  // Loads one file (any name). The record is kept whatever the outcome; the
  // returned status says whether the plugin is usable.
  absl::Status LoadFile(const std::string& path);

  const std::vector<PluginRecord>& plugins() const { return records_; }

  // Usable plugins of a kind, best score first.
  std::vector<const PluginRecord*> Loaded(int32_t kind) const;

  // The backend to use: "auto" is the best loaded backend; "cpu" the best
  // loaded cpu-* variant; anything else an exact plugin name. A named plugin
  // that was declined or rejected gives its reason.
  absl::StatusOr<const PluginRecord*> ChooseBackend(absl::string_view device) const;

 private:
  std::vector<PluginRecord> records_;
  std::vector<void*> handles_;
};

}  // namespace oxinfer

#endif  // OXINFER_CORE_PLUGIN_REGISTRY_H_
