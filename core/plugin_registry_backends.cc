// The registry's backend half: checking a backend's table, what it says
// about its device, and choosing the backends a model runs on.
#include <algorithm>
#include <cstring>
#include <utility>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/plugin_registry.h"

namespace oxinfer {
namespace {

bool IsCompleteCpu(const PluginRecord& r) {
  return r.backend.device_kind == OXI_DEVICE_CPU && r.backend.complete();
}

DeviceInfo CopyDeviceInfo(const oxi_device_info& info) {
  DeviceInfo d;
  d.name = info.name != nullptr ? info.name : "";
  d.kind = info.kind;
  d.compute_units = info.compute_units;
  d.memory_total = info.memory_total;
  d.memory_free = info.memory_free;
  d.subgroup_size = info.subgroup_size;
  d.driver = info.driver != nullptr ? info.driver : "";
  return d;
}

oxi_device_info EmptyDeviceInfo() {
  oxi_device_info info;
  std::memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  return info;
}

std::optional<DeviceInfo> QueryDeviceInfo(const oxi_backend_iface& t) {
  if (t.device_info == nullptr) return std::nullopt;
  oxi_device_info info = EmptyDeviceInfo();
  if (t.device_info(t.self, &info) != OXI_OK) return std::nullopt;
  return CopyDeviceInfo(info);
}

// ABI 2.1's fields, when the table is large enough to hold them.
void QueryDevices(const oxi_backend_iface& t, BackendInfo* b) {
  if (OXI_HAS_FIELD(&t, oxi_backend_iface, device_count) && t.device_count != nullptr) {
    b->device_count = std::max(t.device_count(t.self), 0);
  }
  if (OXI_HAS_FIELD(&t, oxi_backend_iface, device_info_at) && t.device_info_at != nullptr) {
    for (int32_t i = 0; i < b->device_count; ++i) {
      oxi_device_info info = EmptyDeviceInfo();
      if (t.device_info_at(t.self, i, &info) != OXI_OK) break;
      b->devices.push_back(CopyDeviceInfo(info));
    }
  }
  b->can_select_device =
      OXI_HAS_FIELD(&t, oxi_backend_iface, select_device) && t.select_device != nullptr;
  if (OXI_HAS_FIELD(&t, oxi_backend_iface, prefill_chunk)) {
    b->prefill_chunk = std::max(t.prefill_chunk, 0);
  }
}

// "vulkan:1" -> ("vulkan", 1); no ":" -> (device, -1); a bad index -> -2.
std::pair<absl::string_view, int32_t> SplitDeviceIndex(absl::string_view device) {
  const size_t colon = device.rfind(':');
  if (colon == absl::string_view::npos) return {device, -1};
  int32_t index = -2;
  if (!absl::SimpleAtoi(device.substr(colon + 1), &index) || index < 0) index = -2;
  return {device.substr(0, colon), index};
}

std::string DeviceLabel(const PluginRecord& r, int32_t index) {
  const BackendInfo& b = r.backend;
  if (index >= 0 && index < static_cast<int32_t>(b.devices.size()) &&
      !b.devices[index].name.empty()) {
    return b.devices[index].name;
  }
  if (b.device.has_value() && !b.device->name.empty()) return b.device->name;
  return b.device_name;
}

}  // namespace

const char* DeviceKindName(int32_t device_kind) {
  switch (device_kind) {
    case OXI_DEVICE_CPU:
      return "cpu";
    case OXI_DEVICE_GPU:
      return "gpu";
    case OXI_DEVICE_ACCEL:
      return "accel";
    default:
      return "?";
  }
}

std::string BackendFlagsName(uint32_t flags) {
  return absl::StrCat((flags & OXI_BACKEND_COMPLETE) != 0 ? "complete" : "partial",
                      (flags & OXI_BACKEND_HOST_MEMORY) != 0 ? ", host memory" : "");
}

absl::Status PluginRegistry::CheckBackend(PluginRecord* rec) {
  const auto* t = static_cast<const oxi_backend_iface*>(rec->iface);
  // device_info is the last field of ABI 2.0's table; later minors append.
  if (!OXI_HAS_FIELD(t, oxi_backend_iface, device_info)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: backend '%s' has a %u-byte table, smaller than ABI 2.0's %u bytes", rec->path,
        rec->name, t->struct_size,
        static_cast<unsigned>(offsetof(oxi_backend_iface, device_info) + sizeof(t->device_info))));
  }
  const bool complete = (t->flags & OXI_BACKEND_COMPLETE) != 0;
  const bool host_memory = (t->flags & OXI_BACKEND_HOST_MEMORY) != 0;
  std::vector<std::string> missing;
  if (t->buffer_alloc == nullptr) missing.push_back("buffer_alloc");
  if (t->buffer_free == nullptr) missing.push_back("buffer_free");
  if (t->buffer_write == nullptr) missing.push_back("buffer_write");
  if (t->buffer_read == nullptr) missing.push_back("buffer_read");
  if (t->execute == nullptr) missing.push_back("execute");
  if (!complete && t->supports == nullptr) {
    missing.push_back("supports (required without OXI_BACKEND_COMPLETE)");
  }
  if (host_memory && t->buffer_host_ptr == nullptr) {
    missing.push_back("buffer_host_ptr (required with OXI_BACKEND_HOST_MEMORY)");
  }
  if (!missing.empty()) {
    return absl::InvalidArgumentError(absl::StrFormat("%s: backend '%s' lacks %s", rec->path,
                                                      rec->name, absl::StrJoin(missing, ", ")));
  }
  if (t->device_kind != OXI_DEVICE_CPU && t->device_kind != OXI_DEVICE_GPU &&
      t->device_kind != OXI_DEVICE_ACCEL) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: backend '%s' has unknown device kind %d (expected 1 cpu, 2 gpu or 3 accel)", rec->path,
        rec->name, t->device_kind));
  }
  rec->backend.device_name = t->device_name != nullptr ? t->device_name : "";
  rec->backend.device_kind = t->device_kind;
  rec->backend.flags = t->flags;
  rec->backend.device = QueryDeviceInfo(*t);
  QueryDevices(*t, &rec->backend);
  return absl::OkStatus();
}

std::string BackendChoice::Describe() const {
  if (accelerator == nullptr) {
    return absl::StrCat(cpu != nullptr ? cpu->name : "?", " (",
                        cpu != nullptr ? DeviceLabel(*cpu, -1) : "", ")");
  }
  return absl::StrCat(accelerator->name,
                      accelerator_device >= 0 ? absl::StrCat(":", accelerator_device) : "", " (",
                      DeviceLabel(*accelerator, accelerator_device), "), the rest on ",
                      cpu != nullptr ? cpu->name : "?");
}

std::string PluginRegistry::DescribeBackends() const {
  std::string out;
  for (const PluginRecord& r : records_) {
    // Files rejected before their kind was known may have been backends.
    if (r.kind != OXI_PLUGIN_BACKEND && !(r.kind == 0 && r.state == PluginState::kRejected)) {
      continue;
    }
    absl::StrAppend(&out, "\n  ", r.name.empty() ? "?" : r.name, " (", r.path,
                    "): ", PluginStateName(r.state));
    if (r.state == PluginState::kLoaded) {
      absl::StrAppend(&out, ", device kind ", DeviceKindName(r.backend.device_kind), ", ",
                      BackendFlagsName(r.backend.flags));
    } else {
      absl::StrAppend(&out, ": ", r.reason);
    }
  }
  if (out.empty()) {
    return absl::StrCat(" No backend plugin was found at all; searched: ",
                        searched_.empty() ? "no folder" : absl::StrJoin(searched_, ", "),
                        " (the installation's folders, --plugin-dir, OXINFER_PLUGIN_PATH).");
  }
  return absl::StrCat(" Backends seen:", out);
}

absl::StatusOr<BackendChoice> PluginRegistry::ChooseBackends(absl::string_view device) const {
  auto [name, index] = SplitDeviceIndex(device);
  if (index == -2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--device=", device, ": after ':' comes a device number (vulkan:1 is the second device)"));
  }
  if (index >= 0 && (name == "auto" || name == "cpu" || name.empty())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--device=", device, ": a device number goes with gpu or a backend name, not with ", name));
  }
  auto choice = ChooseBackendPlugins(name);
  if (!choice.ok() || index < 0) return choice;
  const PluginRecord* r = choice->accelerator != nullptr ? choice->accelerator : choice->cpu;
  const BackendInfo& b = r->backend;
  if (index >= b.device_count) {
    return absl::OutOfRangeError(absl::StrFormat(
        "--device=%s: backend '%s' has %d device%s (numbered from 0)", device, r->name,
        b.device_count, b.device_count == 1 ? "" : "s"));
  }
  if (index > 0 && !b.can_select_device) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "--device=%s: backend '%s' (%s) drives one device only (no select_device)", device,
        r->name, r->path));
  }
  if (choice->accelerator == nullptr && index > 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "--device=%s: '%s' is the CPU fallback, which has one device", device, r->name));
  }
  choice->accelerator_device = choice->accelerator != nullptr && b.can_select_device ? index : -1;
  return choice;
}

absl::StatusOr<BackendChoice> PluginRegistry::ChooseBackendPlugins(absl::string_view device) const {
  const std::vector<const PluginRecord*> loaded = Loaded(OXI_PLUGIN_BACKEND);
  const PluginRecord* cpu = nullptr;
  const PluginRecord* gpu = nullptr;           // the best GPU backend
  const PluginRecord* hardware_gpu = nullptr;  // the best over a real device, for "auto"
  for (const PluginRecord* r : loaded) {  // best score first
    if (cpu == nullptr && IsCompleteCpu(*r)) cpu = r;
    if (r->backend.device_kind != OXI_DEVICE_GPU) continue;
    if (gpu == nullptr) gpu = r;
    if (hardware_gpu == nullptr && !r->backend.software_device()) hardware_gpu = r;
  }
  auto need_cpu = [&]() -> absl::Status {
    if (cpu != nullptr) return absl::OkStatus();
    return absl::NotFoundError(absl::StrCat(
        "no complete CPU backend is loaded (device kind cpu with OXI_BACKEND_COMPLETE): every "
        "model needs one to fall back on; run `oxinfer --plugins` to see what was searched.",
        DescribeBackends()));
  };

  if (device == "cpu") {
    if (absl::Status s = need_cpu(); !s.ok()) return s;
    return BackendChoice{nullptr, cpu};
  }
  if (device.empty() || device == "auto") {
    if (absl::Status s = need_cpu(); !s.ok()) return s;
    BackendChoice c{hardware_gpu, cpu};
    if (hardware_gpu == nullptr && gpu != nullptr) {
      c.auto_note = absl::StrCat("passed over ", gpu->name, " (", DeviceLabel(*gpu, -1),
                                 "): a software device, slower than the CPU backend");
    } else if (hardware_gpu == nullptr) {
      std::vector<std::string> why;
      for (const PluginRecord& r : records_) {
        if (r.kind == OXI_PLUGIN_BACKEND && r.state == PluginState::kDeclined) {
          why.push_back(absl::StrCat(r.name, ": ", r.reason));
        }
      }
      c.auto_note = why.empty() ? "no GPU backend is installed"
                                : absl::StrCat("no usable GPU (", absl::StrJoin(why, "; "), ")");
    }
    return c;
  }
  if (device == "gpu") {
    if (gpu == nullptr) {
      return absl::NotFoundError(absl::StrCat(
          "--device=gpu: no usable GPU backend (device kind gpu) is loaded.", DescribeBackends()));
    }
    if (absl::Status s = need_cpu(); !s.ok()) return s;
    return BackendChoice{gpu, cpu};
  }

  const PluginRecord* named = FindByName(device);
  if (named == nullptr) {
    return absl::NotFoundError(absl::StrCat("no backend named '", device,
                                            "' (expected auto, cpu, gpu or a plugin name).",
                                            DescribeBackends()));
  }
  if (named->kind != OXI_PLUGIN_BACKEND && named->state != PluginState::kRejected) {
    return absl::InvalidArgumentError(absl::StrFormat("'%s' (%s) is a %s plugin, not a backend",
                                                      device, named->path,
                                                      PluginKindName(named->kind)));
  }
  if (named->state != PluginState::kLoaded) {
    return absl::FailedPreconditionError(absl::StrFormat("backend '%s' (%s) is %s: %s", device,
                                                         named->path, PluginStateName(named->state),
                                                         named->reason));
  }
  if (IsCompleteCpu(*named)) return BackendChoice{nullptr, named};
  if (absl::Status s = need_cpu(); !s.ok()) return s;
  return BackendChoice{named, cpu};
}

}  // namespace oxinfer
