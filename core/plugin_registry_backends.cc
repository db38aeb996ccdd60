// The registry's backend half: checking a backend's table, what it says
// about its device, and choosing the backends a model runs on.
#include <algorithm>
#include <cstring>
#include <tuple>
#include <utility>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/plugin_registry.h"

namespace oxinfer {
namespace {

bool IsCompleteCpu(const PluginRecord& r) {
  return r.backend.device_kind == OXI_DEVICE_CPU && r.backend.complete();
}

std::optional<DeviceInfo> QueryDeviceInfo(const oxi_backend_iface& t) {
  if (t.device_info == nullptr) return std::nullopt;
  oxi_device_info info;
  std::memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  if (t.device_info(t.self, &info) != OXI_OK) return std::nullopt;
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

// ABI 2.1's device list, when the table has one.
std::vector<DeviceInfo> QueryDeviceList(const oxi_backend_iface& t) {
  std::vector<DeviceInfo> out;
  if (!OXI_HAS_FIELD(&t, oxi_backend_iface, device_info_at) || t.device_count == nullptr ||
      t.device_info_at == nullptr) {
    return out;
  }
  const int32_t n = t.device_count(t.self);
  for (int32_t i = 0; i < n && i < 64; ++i) {
    oxi_device_info info;
    std::memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    if (t.device_info_at(t.self, i, &info) != OXI_OK) break;
    out.push_back(CopyDeviceInfo(info));
  }
  return out;
}

// "vulkan:1" -> ("vulkan", 1); no colon, or not a number after it: index -1.
std::pair<std::string, int32_t> SplitDeviceIndex(absl::string_view device) {
  const size_t colon = device.rfind(':');
  if (colon == absl::string_view::npos || colon + 1 >= device.size()) return {std::string(device), -1};
  int32_t index = 0;
  for (char c : device.substr(colon + 1)) {
    if (c < '0' || c > '9' || index > 100000) return {std::string(device), -1};
    index = index * 10 + (c - '0');
  }
  return {std::string(device.substr(0, colon)), index};
}

// The device's name for messages: device `index` of the list, else the
// table's device_info, else its short device name.
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

std::string BackendChoice::Describe() const {
  if (accelerator == nullptr) {
    return cpu == nullptr ? "?" : absl::StrCat(cpu->name, " (", DeviceLabel(*cpu, -1), ")");
  }
  const bool listed = !accelerator->backend.devices.empty();
  return absl::StrCat(accelerator->name, listed ? absl::StrCat(":", accelerator_device) : "",
                      " (", DeviceLabel(*accelerator, listed ? accelerator_device : -1),
                      "), the rest on ", cpu != nullptr ? cpu->name : "?");
}

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
  rec->backend.devices = QueryDeviceList(*t);
  if (OXI_HAS_FIELD(t, oxi_backend_iface, prefill_chunk) && t->prefill_chunk > 0) {
    rec->backend.prefill_chunk = t->prefill_chunk;
  }
  return absl::OkStatus();
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
  const std::vector<const PluginRecord*> loaded = Loaded(OXI_PLUGIN_BACKEND);
  const PluginRecord* cpu = nullptr;
  const PluginRecord* gpu = nullptr;           // the best GPU backend
  const PluginRecord* hardware_gpu = nullptr;  // the best over a real device, for "auto"
  for (const PluginRecord* r : loaded) {  // best score first
    if (cpu == nullptr && IsCompleteCpu(*r)) cpu = r;
    if (gpu == nullptr && r->backend.device_kind == OXI_DEVICE_GPU) gpu = r;
    if (hardware_gpu == nullptr && r->backend.device_kind == OXI_DEVICE_GPU &&
        !r->backend.software_device()) {
      hardware_gpu = r;
    }
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
  int32_t device_index = 0;
  std::string base;
  if (named == nullptr) {
    int32_t index;
    std::tie(base, index) = SplitDeviceIndex(device);
    if (index >= 0 && (named = FindByName(base)) != nullptr && named->state == PluginState::kLoaded &&
        named->kind == OXI_PLUGIN_BACKEND) {
      const int32_t count = static_cast<int32_t>(named->backend.devices.size());
      if (index >= std::max(count, 1)) {
        return absl::NotFoundError(absl::StrFormat(
            "--device=%s: backend '%s' has %d device%s (indices 0 to %d)", device, base,
            std::max(count, 1), count == 1 ? "" : "s", std::max(count, 1) - 1));
      }
      device_index = index;
    } else if (index >= 0 && named != nullptr) {
      device = base;  // declined, rejected or not a backend: said below
    } else {
      named = nullptr;
    }
  }
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
  return BackendChoice{named, cpu, device_index};
}

absl::Status SelectChosenDevice(const BackendChoice& choice) {
  if (choice.accelerator == nullptr) return absl::OkStatus();
  const oxi_backend_iface* t = choice.accelerator->backend_iface();
  if (t == nullptr) return absl::OkStatus();
  if (!OXI_HAS_FIELD(t, oxi_backend_iface, select_device) || t->select_device == nullptr) {
    if (choice.accelerator_device == 0) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrFormat(
        "backend '%s' cannot choose a device (no select_device)", choice.accelerator->name));
  }
  char error[512];
  error[0] = '\0';
  const int32_t rc = t->select_device(t->self, choice.accelerator_device, error, sizeof error);
  if (rc == OXI_OK) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrFormat("backend '%s': device %d: %s",
                                                    choice.accelerator->name,
                                                    choice.accelerator_device, error));
}

}  // namespace oxinfer
