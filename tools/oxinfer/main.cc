// oxinfer: the command-line host. Finds the plugins, picks a backend and (once
// model plugins exist) runs a model. See README.md for the flags.
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/cpu_features.h"
#include "core/host_services.h"
#include "core/plugin_registry.h"
#include "core/thread_pool.h"
#include "tools/oxinfer/cli_args.h"
#include "oxinfer/plugin_abi.h"

ABSL_FLAG(bool, plugins, false, "List every plugin found: kind, name, version, score, state.");
ABSL_FLAG(bool, devices, false, "Print CPU features, cores, memory and the usable backends.");
ABSL_FLAG(std::string, plugin_dir, "",
          "Folders to search for plugins first (colon-separated), before OXINFER_PLUGIN_PATH, "
          "the executable's folder and its ../lib/oxinfer/plugins.");
ABSL_FLAG(std::string, device, "auto",
          "Backend: auto (best available), cpu (best CPU variant), or a plugin name such as "
          "cpu-scalar, cpu-avx2, cpu-avx512.");
ABSL_FLAG(int, threads, 0, "Worker threads (default: all cores).");
ABSL_FLAG(bool, verbose, false, "Log plugin messages at info level.");

namespace oxinfer {
namespace {

std::string GiB(int64_t bytes) {
  return absl::StrFormat("%.1f GiB", static_cast<double>(bytes) / (1024.0 * 1024 * 1024));
}

void PrintPlugins(const PluginRegistry& registry, const std::vector<std::string>& dirs) {
  std::printf("Plugin search path:\n");
  if (dirs.empty()) std::printf("  (no folder found)\n");
  for (const auto& d : dirs) std::printf("  %s\n", d.c_str());
  std::printf("\n%-8s %-16s %-8s %5s  %-9s %s\n", "KIND", "NAME", "VERSION", "SCORE", "STATE",
              "FILE / REASON");
  for (const auto& r : registry.plugins()) {
    const std::string name = r.name.empty() ? "-" : r.name;
    const std::string version = r.version.empty() ? "-" : r.version;
    std::printf("%-8s %-16s %-8s %5d  %-9s %s\n", r.kind ? PluginKindName(r.kind) : "-",
                name.c_str(), version.c_str(), r.score, PluginStateName(r.state),
                r.path.c_str());
    if (!r.reason.empty()) std::printf("%45s%s\n", "", r.reason.c_str());
  }
  if (registry.plugins().empty()) std::printf("(no plugin found)\n");
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
              cpu.model_name.empty() ? "unknown" : cpu.model_name.c_str(), arch,
              cpu.logical_cores, ThreadPool::Global().num_threads());
  std::printf("  features: %s\n", CpuFeatureNames(cpu.features).c_str());
  std::printf("  memory: %s total, %s available", GiB(cpu.memory_total_bytes).c_str(),
              GiB(cpu.memory_available_bytes).c_str());
  if (cpu.l3_cache_bytes > 0) {
    std::printf("; L3 cache %lld MiB", static_cast<long long>(cpu.l3_cache_bytes >> 20));
  }
  std::printf("\n\nBackends:\n");
  auto chosen = registry.ChooseBackend(device);
  const auto loaded = registry.Loaded(OXI_PLUGIN_BACKEND);
  for (const PluginRecord* r : loaded) {
    const auto* iface = static_cast<const oxi_backend_iface*>(r->iface);
    const bool is_chosen = chosen.ok() && *chosen == r;
    std::printf("  %s %-14s device %-8s score %3d%s\n", is_chosen ? "*" : " ", r->name.c_str(),
                iface->device_name ? iface->device_name : "?", r->score,
                is_chosen ? "  (chosen)" : "");
  }
  if (loaded.empty()) std::printf("  (none usable)\n");
  for (const auto& r : registry.plugins()) {
    if (r.kind == OXI_PLUGIN_BACKEND && r.state != PluginState::kLoaded) {
      std::printf("    %-14s %s: %s\n", r.name.c_str(), PluginStateName(r.state),
                  r.reason.c_str());
    }
  }
  if (!chosen.ok()) {
    std::printf("\n--device=%s: %s\n", device.c_str(), std::string(chosen.status().message()).c_str());
  }
}

int Main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "local inference for Gemma 4, Qwen 3.5 / 3.8 and Stable Diffusion.\n"
      "  oxinfer --devices --plugins     what this machine and its plugins can do");
  std::vector<std::string> args = NormalizeArgs(argc, argv);
  std::vector<char*> arg_ptrs;
  for (auto& a : args) arg_ptrs.push_back(a.data());
  std::vector<char*> rest =
      absl::ParseCommandLine(static_cast<int>(arg_ptrs.size()), arg_ptrs.data());
  if (rest.size() > 1) {
    std::fprintf(stderr, "oxinfer: unexpected argument '%s' (see --help)\n", rest[1]);
    return 2;
  }
  if (absl::GetFlag(FLAGS_verbose)) SetPluginLogLevel(OXI_LOG_INFO);
  if (absl::GetFlag(FLAGS_threads) > 0) ThreadPool::SetGlobalThreads(absl::GetFlag(FLAGS_threads));

  PluginRegistry registry;
  const auto dirs = PluginRegistry::SearchPath(absl::GetFlag(FLAGS_plugin_dir));
  registry.ScanDirectories(dirs);

  const std::string device = absl::GetFlag(FLAGS_device);
  const bool list_plugins = absl::GetFlag(FLAGS_plugins);
  const bool list_devices = absl::GetFlag(FLAGS_devices);
  if (list_devices) PrintDevices(registry, device);
  if (list_devices && list_plugins) std::printf("\n");
  if (list_plugins) PrintPlugins(registry, dirs);
  if (list_devices || list_plugins) return 0;

  auto backend = registry.ChooseBackend(device);
  if (!backend.ok()) {
    std::fprintf(stderr, "oxinfer: %s\n", std::string(backend.status().message()).c_str());
    return 1;
  }
  std::fprintf(stderr,
               "oxinfer: backend %s is ready, but no model plugin is installed yet.\n"
               "Try `oxinfer --devices --plugins`.\n",
               (*backend)->name.c_str());
  return 1;
}

}  // namespace
}  // namespace oxinfer

int main(int argc, char** argv) { return oxinfer::Main(argc, argv); }
