// oxinfer: the command-line host. Finds the plugins, picks a backend, opens a
// checkpoint with the model plugin that claims it, and generates text (or an
// image). Flags as in the original oxinfer; see README.md.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "core/backend_dispatch.h"
#include "core/backend_profiler.h"
#include "core/cpu_features.h"
#include "core/host_services.h"
#include "core/model_instance.h"
#include "core/paths.h"
#include "core/plugin_registry.h"
#include "core/thread_pool.h"
#include "oxinfer/plugin_abi.h"
#include "tools/oxinfer/cli_args.h"
#include "tools/oxinfer/image_generation.h"
#include "tools/oxinfer/progress_bar.h"
#include "tools/oxinfer/text_generation.h"

// Plugins and devices.
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

// The model.
ABSL_FLAG(std::string, model, "", "Checkpoint folder (config.json + safetensors, or a diffusers "
                                  "folder with model_index.json).");
ABSL_FLAG(std::string, quant, "", "Quantise weights at load: q8 (Q8_0) or q4 (Q4_0).");
ABSL_FLAG(bool, mmap, false, "Map weights from disk instead of reading them into RAM.");
ABSL_FLAG(int, prefill_chunk, 0, "Tokens per prefill chunk (default: the plugin's, 256 on CPU).");
ABSL_FLAG(int, context, 0, "Context length (default: the model's).");
ABSL_FLAG(bool, profile, false, "Print time and bandwidth per backend operation.");

// Text.
ABSL_FLAG(std::string, prompt, "", "The prompt (-p).");
ABSL_FLAG(bool, chat, false, "Interactive multi-turn chat.");
ABSL_FLAG(std::string, system, "", "System prompt (default: a short one saying the model runs "
                                   "locally, with the local date, time and zone).");
ABSL_FLAG(bool, no_system, false, "No system prompt (implied by --raw and --dump-logits).");
ABSL_FLAG(bool, think, false, "Enable the model's thinking mode.");
ABSL_FLAG(bool, raw, false, "Feed the prompt as-is (after <bos>), without the chat template.");
ABSL_FLAG(bool, print_prompt, false, "Print the fully formatted prompt and exit.");
ABSL_FLAG(int, max_tokens, 512, "Cap on generated tokens.");
ABSL_FLAG(double, temp, 0.0, "Sampling temperature; 0 is greedy.");
ABSL_FLAG(int, top_k, 0, "Top-k filter (0: off).");
ABSL_FLAG(double, top_p, 1.0, "Top-p (nucleus) filter (1: off).");
ABSL_FLAG(double, min_p, 0.0, "Min-p filter (0: off).");
ABSL_FLAG(double, repeat_penalty, 1.0, "Repetition penalty (1: off).");
ABSL_FLAG(uint64_t, seed, 0, "Random seed for sampling.");
ABSL_FLAG(bool, show_tokens, false, "Print the prompt's and the reply's token ids.");
ABSL_FLAG(std::string, dump_logits, "",
          "Write the last prompt token's logits (float32, little-endian) to this file.");

// Images.
ABSL_FLAG(std::string, output, "out.png", "Image file to write (-o).");
ABSL_FLAG(std::string, negative, "", "Negative prompt for image generation.");
ABSL_FLAG(int, steps, 0, "Denoising steps (default: 1 for Turbo models, else 25).");
ABSL_FLAG(double, guidance, -1.0, "Classifier-free guidance scale (default: 0 Turbo, else 7.5).");
ABSL_FLAG(std::string, sampler, "", "euler or euler_a (default: euler_a).");
ABSL_FLAG(std::string, size, "", "Image size WIDTHxHEIGHT (default: the model's).");

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
    std::printf("\n--device=%s: %s\n", device.c_str(),
                std::string(chosen.status().message()).c_str());
  }
}

absl::StatusOr<oxi_dtype> ParseQuant(const std::string& q) {
  if (q.empty() || q == "none" || q == "bf16") return OXI_DTYPE_INVALID;
  if (q == "q8" || q == "q8_0") return OXI_DTYPE_Q8_0;
  if (q == "q4" || q == "q4_0") return OXI_DTYPE_Q4_0;
  return absl::InvalidArgumentError(
      absl::StrFormat("--quant=%s: expected q8 or q4", q));
}

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "oxinfer: %s\n", std::string(status.message()).c_str());
  return 1;
}

int Main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "local inference for Gemma 4, Qwen 3.5 / 3.8 and Stable Diffusion.\n"
      "  oxinfer --model DIR -p \"Hello\"      generate text\n"
      "  oxinfer --model DIR --chat           interactive chat\n"
      "  oxinfer --devices --plugins          what this machine and its plugins can do");
  std::vector<std::string> args = NormalizeArgs(argc, argv);
  std::vector<char*> arg_ptrs;
  for (auto& a : args) arg_ptrs.push_back(a.data());
  std::vector<char*> rest =
      absl::ParseCommandLine(static_cast<int>(arg_ptrs.size()), arg_ptrs.data());
  if (rest.size() > 1) {
    std::fprintf(stderr, "oxinfer: unexpected argument '%s' (see --help)\n", rest[1]);
    return 2;
  }
  // --profile also shows what plugins time themselves (e.g. SD's stages).
  if (absl::GetFlag(FLAGS_verbose) || absl::GetFlag(FLAGS_profile)) {
    SetPluginLogLevel(OXI_LOG_INFO);
  }
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

  // The chosen backend, with the best CPU variant behind it for the ops it lacks.
  auto backend = registry.ChooseBackend(device);
  if (!backend.ok()) return Fail(backend.status());

  std::string model_dir = absl::GetFlag(FLAGS_model);
  if (model_dir.empty()) {
    model_dir = DefaultModelDir();
    if (model_dir.empty()) {
      std::fprintf(stderr, "oxinfer: no --model given and this installation has no default model "
                           "(see --help)\n");
      return 2;
    }
    std::fprintf(stderr,
                 "oxinfer: no --model given: running the tiny built-in demonstration model "
                 "(see README.md to run real checkpoints)\n");
  }
  auto quant = ParseQuant(absl::GetFlag(FLAGS_quant));
  if (!quant.ok()) return Fail(quant.status());

  auto cpu = registry.ChooseBackend("cpu");
  const auto* primary = static_cast<const oxi_backend_iface*>((*backend)->iface);
  const auto* fallback = cpu.ok() ? static_cast<const oxi_backend_iface*>((*cpu)->iface) : primary;
  ComposedBackend composed(primary, fallback);
  std::unique_ptr<BackendProfiler> profiler;
  const oxi_backend_iface* compute = composed.iface();
  if (absl::GetFlag(FLAGS_profile)) {
    profiler = std::make_unique<BackendProfiler>(compute);
    compute = profiler->iface();
  }

  ModelOpenOptions open;
  open.weight_dtype = *quant;
  open.use_mmap = absl::GetFlag(FLAGS_mmap);
  open.prefill_chunk = absl::GetFlag(FLAGS_prefill_chunk);
  open.context_length = absl::GetFlag(FLAGS_context);
  ProgressBar loading("loading");
  open.progress = [&](double done, double total, const std::string& what) {
    loading.Update(done, total, what, "%");
  };
  auto model = ModelInstance::Open(registry, model_dir, compute, open);
  loading.Finish();
  if (!model.ok()) return Fail(model.status());
  if (profiler) profiler->Reset();

  if ((*model)->generates_images()) {
    ImageOptions image;
    image.prompt = absl::GetFlag(FLAGS_prompt);
    image.negative = absl::GetFlag(FLAGS_negative);
    image.steps = absl::GetFlag(FLAGS_steps);
    image.guidance = static_cast<float>(absl::GetFlag(FLAGS_guidance));
    image.sampler = absl::GetFlag(FLAGS_sampler);
    image.size = absl::GetFlag(FLAGS_size);
    image.seed = absl::GetFlag(FLAGS_seed);
    image.output = absl::GetFlag(FLAGS_output);
    absl::Status s = RunImageGeneration(**model, registry, image);
    if (profiler) std::fprintf(stderr, "%s", profiler->Report().c_str());
    return s.ok() ? 0 : Fail(s);
  }

  TextOptions text;
  text.prompt = absl::GetFlag(FLAGS_prompt);
  text.system = absl::GetFlag(FLAGS_system);
  text.no_system = absl::GetFlag(FLAGS_no_system);
  text.think = absl::GetFlag(FLAGS_think);
  text.raw = absl::GetFlag(FLAGS_raw);
  text.print_prompt = absl::GetFlag(FLAGS_print_prompt);
  text.chat = absl::GetFlag(FLAGS_chat);
  text.show_tokens = absl::GetFlag(FLAGS_show_tokens);
  text.max_tokens = absl::GetFlag(FLAGS_max_tokens);
  text.dump_logits = absl::GetFlag(FLAGS_dump_logits);
  text.sampling.temperature = static_cast<float>(absl::GetFlag(FLAGS_temp));
  text.sampling.top_k = absl::GetFlag(FLAGS_top_k);
  text.sampling.top_p = static_cast<float>(absl::GetFlag(FLAGS_top_p));
  text.sampling.min_p = static_cast<float>(absl::GetFlag(FLAGS_min_p));
  text.sampling.repetition_penalty = static_cast<float>(absl::GetFlag(FLAGS_repeat_penalty));
  text.sampling.seed = absl::GetFlag(FLAGS_seed);
  absl::Status s = RunTextGeneration(**model, model_dir, text, profiler.get());
  return s.ok() ? 0 : Fail(s);
}

}  // namespace
}  // namespace oxinfer

int main(int argc, char** argv) { return oxinfer::Main(argc, argv); }
