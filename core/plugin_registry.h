// Finds, validates, scores and holds the plugins of this process.
//
// A plugin is a shared object named liboxinfer_<anything>.so exporting
// oxinfer_plugin_entry (abi_common.h). Nothing a plugin file does wrong stops
// the host: the file is recorded with its state and the reason, and the scan
// goes on.
//
// Where plugins are looked for (SearchPath), in this order:
//   1. the installation's own folders: the executable's folder, then its
//      ../lib/oxinfer/plugins;
//   2. the --plugin-dir folders (colon-separated), in the order given;
//   3. the OXINFER_PLUGIN_PATH folders, in the order given.
// Files of one folder are taken in name order.
//
// Name clashes: the first plugin of a name wins unless it was rejected
// (could not be used at all: not a shared object, no entry symbol, another
// ABI major, a broken descriptor or table). A declined plugin does win: the
// same plugin would decline again. Since the installation's folders come
// first, its plugins win over same-named ones from --plugin-dir and
// OXINFER_PLUGIN_PATH, and --plugin-dir wins over OXINFER_PLUGIN_PATH. The
// loser is recorded as kShadowed with the winner's path (its entry was called
// to learn its name; it is never scored or used), and a warning line is
// logged through the host's log (stderr).
//
// Backends are chosen by device kind (ChooseBackends): the CPU fallback every
// model needs is the best-scoring loaded backend of kind CPU with
// OXI_BACKEND_COMPLETE; an accelerator is a GPU backend (by "auto" or "gpu")
// or any backend named exactly.
#ifndef OXINFER_CORE_PLUGIN_REGISTRY_H_
#define OXINFER_CORE_PLUGIN_REGISTRY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "oxinfer/plugin_abi.h"

namespace oxinfer {

enum class PluginState {
  kLoaded,    // score > 0 and its interface obtained and checked: usable
  kDeclined,  // a valid plugin that cannot run here (score 0), with its reason
  kRejected,  // not usable at all: not a shared object, no entry, ABI mismatch...
  kShadowed,  // a plugin of the same name was found first (shadowed_by)
};

const char* PluginStateName(PluginState state);
const char* PluginKindName(int32_t kind);
// "cpu", "gpu", "accel"; "?" for anything else.
const char* DeviceKindName(int32_t device_kind);
// "complete" or "partial", then ", host memory" when the flag is set.
std::string BackendFlagsName(uint32_t flags);

// A backend's oxi_device_info, copied (--devices).
struct DeviceInfo {
  std::string name;
  int32_t kind = 0;  // oxi_device_kind
  int32_t compute_units = 0;
  uint64_t memory_total = 0;  // bytes; 0: unknown
  uint64_t memory_free = 0;
  int32_t subgroup_size = 0;  // 0: not applicable
  std::string driver;         // "" when the backend names none
};

// What a loaded backend's table says about it.
struct BackendInfo {
  std::string device_name;           // the table's device_name ("cpu", "vulkan0")
  int32_t device_kind = 0;           // oxi_device_kind
  uint32_t flags = 0;                // OXI_BACKEND_*
  std::optional<DeviceInfo> device;  // when the table has device_info and it answered
  // ABI 2.1: every device of a backend that sees several (device_info_at),
  // in its order (--device vulkan:1 takes index 1); empty when it has no list.
  std::vector<DeviceInfo> devices;
  int32_t prefill_chunk = 0;  // ABI 2.1: tokens per prefill chunk; 0: the host's default
  // A GPU backend whose device is a software implementation (its
  // device_info's kind is cpu): "auto" passes it over.
  bool software_device() const { return device.has_value() && device->kind == OXI_DEVICE_CPU; }

  bool complete() const { return (flags & OXI_BACKEND_COMPLETE) != 0; }
  bool host_memory() const { return (flags & OXI_BACKEND_HOST_MEMORY) != 0; }
};

struct PluginRecord {
  std::string path;
  int32_t kind = 0;  // oxi_plugin_kind; 0 when unknown (rejected early)
  std::string name;
  std::string version;
  std::string description;
  uint32_t abi_major = 0, abi_minor = 0;
  int32_t score = 0;
  PluginState state = PluginState::kRejected;
  std::string reason;       // why declined, rejected or shadowed
  std::string shadowed_by;  // kShadowed: the path of the plugin that won
  const oxi_plugin* plugin = nullptr;
  const void* iface = nullptr;  // the kind's interface when loaded
  BackendInfo backend;          // a loaded backend's kind, flags, device

  const oxi_backend_iface* backend_iface() const {
    return kind == OXI_PLUGIN_BACKEND ? static_cast<const oxi_backend_iface*>(iface) : nullptr;
  }
};

// The backends a model runs on.
struct BackendChoice {
  const PluginRecord* accelerator = nullptr;  // null: the CPU alone
  const PluginRecord* cpu = nullptr;          // the complete CPU backend (fallback); never null
  int32_t accelerator_device = 0;             // --device NAME:N: the accelerator's device index
  // Why "auto" ran on the CPU alone or passed a GPU backend over ("" when it
  // had no reason to).
  std::string auto_note;

  // One line for the user: "cuda (NVIDIA H200), the rest on cpu-avx2".
  std::string Describe() const;
};

// Points the chosen accelerator at its device (select_device, ABI 2.1) when
// --device named one (NAME:N) or the backend has a device list; before any
// buffer is allocated on it.
absl::Status SelectChosenDevice(const BackendChoice& choice);

class PluginRegistry {
 public:
  PluginRegistry();
  ~PluginRegistry();  // keeps plugins mapped until the end (see .cc)
  PluginRegistry(const PluginRegistry&) = delete;
  PluginRegistry& operator=(const PluginRegistry&) = delete;

  // The folders to scan, in the order above: the executable's folder, its
  // ../lib/oxinfer/plugins, plugin_dirs (colon-separated, may be empty),
  // OXINFER_PLUGIN_PATH. Missing folders and repeats (after symlinks) are
  // dropped.
  static std::vector<std::string> SearchPath(absl::string_view plugin_dirs);

  // Loads every liboxinfer_*.so (.dylib) of each folder, folders in the order
  // given, files in name order. The folders are remembered (searched()).
  void ScanDirectories(const std::vector<std::string>& dirs);

  // Loads one file (any name), appending exactly one record whatever the
  // outcome; the status says whether the plugin is usable.
  absl::Status LoadFile(const std::string& path);

  // Every file seen, in load order.
  const std::vector<PluginRecord>& plugins() const { return records_; }
  // The folders ScanDirectories was given, in order.
  const std::vector<std::string>& searched() const { return searched_; }

  // Usable plugins of a kind, best score first (ties: load order).
  std::vector<const PluginRecord*> Loaded(int32_t kind) const;

  // The plugin that holds `name` (the winner of a clash; declined and
  // rejected ones too), or nullptr.
  const PluginRecord* FindByName(absl::string_view name) const;

  // The backends for --device:
  //   "auto" (or ""): the best-scoring loaded GPU backend as the accelerator
  //     if there is one (never an ACCEL one, nor a GPU backend over a
  //     software device), else the CPU alone; auto_note says why not a GPU;
  //   "cpu": the CPU alone;
  //   "gpu": the best GPU backend, or NOT_FOUND saying what was seen;
  //   anything else: the backend of exactly that plugin name (never a
  //     prefix), optionally followed by :N, the index of one of its devices
  //     (vulkan:1; ABI 2.1's device list); if it is itself a complete CPU backend it is the fallback
  //     and there is no accelerator. Declined, rejected or shadowed: its
  //     reason (FAILED_PRECONDITION); another kind: INVALID_ARGUMENT.
  // The fallback is the best-scoring loaded backend of kind CPU with
  // OXI_BACKEND_COMPLETE; NOT_FOUND when there is none. Errors list every
  // backend seen and why it was not usable.
  absl::StatusOr<BackendChoice> ChooseBackends(absl::string_view device) const;

 private:
  // Checks a backend's table against ABI 2.0 (size, required entries, device
  // kind) and fills rec->backend, device info included.
  static absl::Status CheckBackend(PluginRecord* rec);
  // One line per backend file seen: its state and what it is or why not.
  std::string DescribeBackends() const;

  std::vector<PluginRecord> records_;
  std::vector<std::string> searched_;
  std::vector<void*> handles_;
};

}  // namespace oxinfer

#endif  // OXINFER_CORE_PLUGIN_REGISTRY_H_
