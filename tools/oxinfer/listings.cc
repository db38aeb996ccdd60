#include "tools/oxinfer/listings.h"

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/cpu_features.h"
#include "core/thread_pool.h"
#include "oxinfer/codec_abi.h"

namespace oxinfer {
namespace {

std::string GiB(uint64_t bytes) {
  return absl::StrFormat("%.1f GiB", static_cast<double>(bytes) / (1024.0 * 1024 * 1024));
}

// "cpu complete", "gpu partial".
std::string BackendKind(const BackendInfo& b) {
  return absl::StrCat(DeviceKindName(b.device_kind), b.complete() ? " complete" : " partial");
}

// "Intel Xeon, 2 compute units, 23.4 GiB (20.1 GiB free), driver".
std::string DeviceDetails(const BackendInfo& b) {
  if (!b.device.has_value()) return b.device_name + (b.host_memory() ? ", host memory" : "");
  const DeviceInfo& d = *b.device;
  std::string s = d.name.empty() ? b.device_name : d.name;
  if (d.compute_units > 0) absl::StrAppend(&s, ", ", d.compute_units, " compute units");
  if (d.memory_total > 0) {
    absl::StrAppend(&s, ", ", GiB(d.memory_total));
    if (d.memory_free > 0) absl::StrAppend(&s, " (", GiB(d.memory_free), " free)");
  }
  if (d.subgroup_size > 0) absl::StrAppend(&s, ", subgroup ", d.subgroup_size);
  if (!d.driver.empty()) absl::StrAppend(&s, ", ", d.driver);
  if (b.host_memory()) absl::StrAppend(&s, ", host memory");
  return s;
}

// One device of a backend's list: "llvmpipe (...), cpu, 23.4 GiB, subgroup 8, Mesa 22.3.6".
std::string ListedDevice(const DeviceInfo& d) {
  std::string s = absl::StrCat(d.name, ", ", DeviceKindName(d.kind));
  if (d.compute_units > 0) absl::StrAppend(&s, ", ", d.compute_units, " compute units");
  if (d.memory_total > 0) absl::StrAppend(&s, ", ", GiB(d.memory_total));
  if (d.subgroup_size > 0) absl::StrAppend(&s, ", subgroup ", d.subgroup_size);
  if (!d.driver.empty()) absl::StrAppend(&s, ", ", d.driver);
  return s;
}

// "jpeg, jpg (decodes images)".
std::string CodecFormats(const PluginRecord& r) {
  const auto* c = static_cast<const oxi_codec_iface*>(r.iface);
  std::string s = c->formats != nullptr ? c->formats : "?";
  std::vector<std::string> what;
  if (OXI_HAS_FIELD(c, oxi_codec_iface, free_audio)) {
    if ((c->media & OXI_MEDIA_IMAGE) && c->decode_image_rgb) what.push_back("decodes images");
    if ((c->media & OXI_MEDIA_AUDIO) && c->decode_audio) what.push_back("decodes audio");
  }
  if (c->encode_image != nullptr) what.push_back("encodes images");
  if (!what.empty()) absl::StrAppend(&s, " (", absl::StrJoin(what, ", "), ")");
  return s;
}

}  // namespace

void PrintPlugins(const PluginRegistry& registry) {
  std::printf("Plugin search path:\n");
  if (registry.searched().empty()) std::printf("  (no folder found)\n");
  for (const auto& d : registry.searched()) std::printf("  %s\n", d.c_str());
  std::printf("\n%-8s %-16s %-8s %5s  %-9s %-13s %s\n", "KIND", "NAME", "VERSION", "SCORE", "STATE",
              "BACKEND", "FILE / REASON");
  const auto& records = registry.plugins();
  for (const auto& r : records) {
    const std::string name = r.name.empty() ? "-" : r.name;
    const std::string version = r.version.empty() ? "-" : r.version;
    const std::string backend = r.kind == OXI_PLUGIN_BACKEND && r.state == PluginState::kLoaded
                                    ? BackendKind(r.backend)
                                    : "-";
    std::printf("%-8s %-16s %-8s %5d  %-9s %-13s %s\n", r.kind ? PluginKindName(r.kind) : "-",
                name.c_str(), version.c_str(), r.score, PluginStateName(r.state), backend.c_str(),
                r.path.c_str());
    if (!r.reason.empty()) std::printf("%59s%s\n", "", r.reason.c_str());
    if (r.kind == OXI_PLUGIN_CODEC && r.state == PluginState::kLoaded) {
      std::printf("%59sformats: %s\n", "", CodecFormats(r).c_str());
    }
  }
  if (records.empty()) std::printf("(no plugin found)\n");
}

void PrintDevices(const PluginRegistry& registry, const std::string& device) {
  const CpuInfo& cpu = GetCpuInfo();
#if defined(__x86_64__)
  const char* arch = "x86_64";
#elif defined(__aarch64__)
  const char* arch = "aarch64";
#else
  const char* arch = "unknown";
#endif
  std::printf("CPU: %s (%s), %d logical cores, %d worker threads\n",
              cpu.model_name.empty() ? "unknown" : cpu.model_name.c_str(), arch, cpu.logical_cores,
              ThreadPool::Global().num_threads());
  std::printf("  features: %s\n", CpuFeatureNames(cpu.features).c_str());
  std::printf("  memory: %s total, %s available", GiB(cpu.memory_total_bytes).c_str(),
              GiB(cpu.memory_available_bytes).c_str());
  if (cpu.l3_cache_bytes > 0) {
    std::printf("; L3 cache %lld MiB", static_cast<long long>(cpu.l3_cache_bytes >> 20));
  }
  std::printf("\n\nBackends:\n");
  auto chosen = registry.ChooseBackends(device);
  const auto loaded = registry.Loaded(OXI_PLUGIN_BACKEND);
  for (const PluginRecord* r : loaded) {
    std::string note;
    if (chosen.ok() && r == chosen->accelerator) note = "  (chosen)";
    if (chosen.ok() && r == chosen->cpu) {
      note = chosen->accelerator == nullptr ? "  (chosen)" : "  (CPU fallback)";
    }
    std::printf("  %s %-14s %-16s score %3d  %s%s\n", note.empty() ? " " : "*", r->name.c_str(),
                BackendKind(r->backend).c_str(), r->score, DeviceDetails(r->backend).c_str(),
                note.c_str());
    // ABI 2.1: a backend that sees several devices lists them all (--device NAME:N).
    for (size_t i = 0; i < r->backend.devices.size(); ++i) {
      const bool picked = chosen.ok() && r == chosen->accelerator &&
                          static_cast<size_t>(chosen->accelerator_device) == i;
      std::printf("      %s:%zu  %s%s\n", r->name.c_str(), i,
                  ListedDevice(r->backend.devices[i]).c_str(), picked ? "  (chosen)" : "");
    }
  }
  if (loaded.empty()) std::printf("  (none usable)\n");
  for (const auto& r : registry.plugins()) {
    if (r.kind == OXI_PLUGIN_BACKEND && r.state != PluginState::kLoaded) {
      std::printf("    %-14s %s: %s\n", r.name.c_str(), PluginStateName(r.state), r.reason.c_str());
    }
  }
  if (chosen.ok() && (device == "auto" || device.empty())) {
    std::printf("\n--device=auto: %s%s%s\n", chosen->Describe().c_str(),
                chosen->auto_note.empty() ? "" : "; ", chosen->auto_note.c_str());
  }
  if (!chosen.ok()) {
    std::printf("\n--device=%s: %s\n", device.c_str(),
                std::string(chosen.status().message()).c_str());
  }
}

}  // namespace oxinfer
