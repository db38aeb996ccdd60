// oxinfer: the command-line host. Parses the flags (those of the original
// oxinfer; see README.md), opens the engine (core/engine/engine.h) and prints
// what it returns: streamed replies, images, listings, figures.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_format.h"
#include "core/engine/chat_prompt.h"
#include "core/engine/engine.h"
#include "core/engine/plugins.h"
#include "core/host_services.h"
#include "core/limits.h"
#include "core/paths.h"
#include "core/thread_pool.h"
#include "tools/oxinfer/cli_args.h"
#include "tools/oxinfer/decode_command.h"
#include "tools/oxinfer/flag_checks.h"
#include "tools/oxinfer/image_command.h"
#include "tools/oxinfer/listings.h"
#include "tools/oxinfer/model_source.h"
#include "tools/oxinfer/progress_bar.h"
#include "tools/oxinfer/save_quantized.h"
#include "tools/oxinfer/serve_command.h"
#include "tools/oxinfer/text_command.h"

// Plugins and devices.
ABSL_FLAG(bool, plugins, false,
          "List every plugin found: kind, name, version, score, state, and for backends their "
          "device kind and completeness.");
ABSL_FLAG(bool, devices, false,
          "Print CPU features, cores, memory and the usable backends with their devices.");
ABSL_FLAG(std::string, plugin_dir, "",
          "Folders to search for plugins first (colon-separated), before OXINFER_PLUGIN_PATH, "
          "the executable's folder and its ../lib/oxinfer/plugins.");
ABSL_FLAG(std::string, device, "auto",
          "Backend: auto (a usable GPU if any, else the CPU; says which it chose), cpu (the "
          "best CPU variant), gpu, or a backend name such as cuda, vulkan, cpu-avx2; NAME:N "
          "picks device N of a backend that sees several (vulkan:1).");
ABSL_FLAG(int, threads, 0, "Worker threads (default: all cores).");
ABSL_FLAG(bool, verbose, false, "Log plugin messages at info level.");

// The model.
ABSL_FLAG(std::string, model, "",
          "Checkpoint folder (config.json + safetensors, or a diffusers folder with "
          "model_index.json), or a Hugging Face Hub repository ORG/NAME[@REVISION], "
          "downloaded into the shared Hub cache ($HF_HOME/hub) when not there yet.");
ABSL_FLAG(std::string, cache_dir, "",
          "Hub cache folder (default: OXINFER_CACHE, else HF_HUB_CACHE, else $HF_HOME/hub, "
          "else ~/.cache/huggingface/hub).");
ABSL_FLAG(bool, download_only, false,
          "Download --model ORG/NAME into the cache, print its folder and exit.");
ABSL_FLAG(std::string, quant, "", "Quantise weights at load: q8 (Q8_0) or q4 (Q4_0).");
ABSL_FLAG(bool, mmap, false, "Map weights from disk instead of reading them into RAM.");
ABSL_FLAG(std::string, save_quantized, "",
          "Write the model at --quant precision to this folder (safetensors in the layouts the "
          "chosen backend computes with; loads later without conversion, --quant implied), "
          "then exit; with -p or --chat, go on to run it. The folder must be new, empty or a "
          "previous save, which is replaced whole.");
ABSL_FLAG(int, prefill_chunk, 0,
          "Tokens per prefill chunk (default: the backend's, e.g. 512 on CUDA; else the model "
          "plugin's, 256 on CPU).");
ABSL_FLAG(int, context, 0, "Context length (default: the model's).");
ABSL_FLAG(bool, profile, false, "Print time and bandwidth per backend operation.");
ABSL_FLAG(std::string, draft, "",
          "Speculative decoding: mtp (the checkpoint's own multi-token-prediction head "
          "drafts), or the folder of a drafter checkpoint loaded beside the model (Gemma 4's "
          "assistant, model_type gemma4_assistant); the reply is the same as without.");
ABSL_FLAG(int, draft_tokens, 6,
          "With --draft: tokens drafted per round at most (the length adapts from 2 to this).");
ABSL_FLAG(bool, show_drafts, false,
          "With --draft: print every round's drafted ids and how many were accepted.");

// Text.
ABSL_FLAG(std::string, prompt, "", "The prompt (-p).");
ABSL_FLAG(bool, chat, false, "Interactive multi-turn chat.");
ABSL_FLAG(std::string, system, "",
          "System prompt (default: a short one saying the model runs "
          "locally, with the local date, time and zone).");
ABSL_FLAG(bool, no_system, false, "No system prompt (implied by --raw and --dump-logits).");
ABSL_FLAG(bool, think, false, "Enable the model's thinking mode.");
ABSL_FLAG(bool, raw, false, "Feed the prompt as-is (after <bos>), without the chat template.");
ABSL_FLAG(bool, print_prompt, false, "Print the fully formatted prompt and exit.");
ABSL_FLAG(bool, split_special_tokens, false,
          "Treat special tokens spelled in the user's text (-p, --system, --chat lines, "
          "--messages) as plain text, as transformers' split_special_tokens=True does; by default "
          "they become control tokens, as transformers tokenises a rendered chat prompt. The "
          "chat template's own special tokens are control tokens either way.");
ABSL_FLAG(int, max_tokens, 512, "Cap on generated tokens.");
ABSL_FLAG(double, temp, 0.0, "Sampling temperature; 0 is greedy.");
ABSL_FLAG(int, top_k, 0, "Top-k filter (0: off).");
ABSL_FLAG(double, top_p, 1.0, "Top-p (nucleus) filter (1: off).");
ABSL_FLAG(double, min_p, 0.0, "Min-p filter (0: off).");
ABSL_FLAG(double, repeat_penalty, 1.0, "Repetition penalty (1: off).");
ABSL_FLAG(uint64_t, seed, 0, "Random seed for sampling.");
ABSL_FLAG(bool, show_tokens, false, "Print the prompt's and the reply's token ids.");
ABSL_FLAG(
    bool, tools, false,
    "Offer the model the built-in tools (calculate, get_current_datetime) and run its calls.");
ABSL_FLAG(std::string, messages, "",
          "The conversation so far: a JSON list of OpenAI-style messages (no default system "
          "prompt is added; -p appends a user turn).");
ABSL_FLAG(std::string, tools_file, "",
          "Tool declarations: a JSON list of {\"type\": \"function\", \"function\": {...}}.");
ABSL_FLAG(std::string, dump_logits, "",
          "Write the last prompt token's logits (float32, little-endian) to this file.");

// Images.
ABSL_FLAG(std::string, output, "out.png", "Image file to write (-o).");
ABSL_FLAG(std::string, negative, "", "Negative prompt for image generation.");
ABSL_FLAG(int, steps, 0, "Denoising steps (default: 1 for Turbo models, else 25).");
ABSL_FLAG(double, guidance, -1.0, "Classifier-free guidance scale (default: 0 Turbo, else 7.5).");
ABSL_FLAG(std::string, sampler, "", "euler or euler_a (default: euler_a).");
ABSL_FLAG(std::string, size, "", "Image size WIDTHxHEIGHT (default: the model's).");

// Media in.
ABSL_FLAG(std::string, decode, "",
          "Decode an image or audio file as a model receives it and write it to --output "
          "(-o): an image format (.png) for the RGB pixels, .wav for 16 kHz mono float32.");
ABSL_FLAG(int64_t, max_image_pixels, 178956970,
          "Refuse images of more pixels, before decoding them (Pillow's limit).");
ABSL_FLAG(double, max_audio_seconds, 3600, "Refuse audio longer than this, before decoding it.");
// --image and --audio are taken out of argv before Abseil parses it (they
// repeat); these entries document them in --help.
ABSL_FLAG(std::string, image, "",
          "An image for the (first) user turn, before its text; repeatable. In --chat, "
          "'/image PATH' attaches one to the next turn.");
ABSL_FLAG(std::string, audio, "",
          "An audio file for the (first) user turn, after the images; repeatable. In --chat, "
          "'/audio PATH' attaches one to the next turn.");
ABSL_FLAG(int, max_soft_tokens, 0,
          "Soft tokens per image: 70, 140, 280, 560 or 1120 (default: the model's).");
ABSL_FLAG(std::string, dump_soft_tokens, "",
          "Write the prompt's soft-token embeddings (float32, [n][hidden]) to this file.");

namespace oxinfer {
namespace {
std::vector<std::string>& RepeatedImages() {
  static auto* v = new std::vector<std::string>;
  return *v;
}
std::vector<std::string>& RepeatedAudios() {
  static auto* v = new std::vector<std::string>;
  return *v;
}
}  // namespace
}  // namespace oxinfer

namespace oxinfer {
namespace {

absl::StatusOr<oxi_dtype> ParseQuant(const std::string& q) {
  if (q.empty() || q == "none" || q == "bf16") return OXI_DTYPE_INVALID;
  if (q == "q8" || q == "q8_0") return OXI_DTYPE_Q8_0;
  if (q == "q4" || q == "q4_0") return OXI_DTYPE_Q4_0;
  return absl::InvalidArgumentError(absl::StrFormat("--quant=%s: expected q8 or q4", q));
}

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "oxinfer: %s\n", std::string(status.message()).c_str());
  return 1;
}

// Values checked before anything is loaded: a negative count is an error, not
// the default (docs/limits.md).
absl::Status CheckFlags() {
  constexpr int64_t kIntMax = INT32_MAX;
  const absl::Status checks[] = {
      CheckCountFlag("threads", absl::GetFlag(FLAGS_threads), 0, limits::kMaxThreads),
      CheckCountFlag("max-tokens", absl::GetFlag(FLAGS_max_tokens), 0, kIntMax),
      CheckCountFlag("prefill-chunk", absl::GetFlag(FLAGS_prefill_chunk), 0, kIntMax),
      CheckCountFlag("context", absl::GetFlag(FLAGS_context), 0, kIntMax),
      CheckCountFlag("top-k", absl::GetFlag(FLAGS_top_k), 0, kIntMax),
      CheckCountFlag("draft-tokens", absl::GetFlag(FLAGS_draft_tokens), 1, 64),
      absl::GetFlag(FLAGS_show_drafts) && absl::GetFlag(FLAGS_draft).empty()
          ? absl::InvalidArgumentError("--show-drafts needs --draft (e.g. --draft mtp)")
          : absl::OkStatus(),
      CheckCountFlag("steps", absl::GetFlag(FLAGS_steps), 0, limits::kMaxDenoisingSteps),
      CheckRealFlag("temp", absl::GetFlag(FLAGS_temp), 0.0, 1e6),
      CheckRealFlag("top-p", absl::GetFlag(FLAGS_top_p), 1e-9, 1.0),
      CheckRealFlag("min-p", absl::GetFlag(FLAGS_min_p), 0.0, 1.0),
      CheckRealFlag("repeat-penalty", absl::GetFlag(FLAGS_repeat_penalty), 1e-9, 1e6),
      // -1: the model's default.
      absl::GetFlag(FLAGS_guidance) == -1.0
          ? absl::OkStatus()
          : CheckRealFlag("guidance", absl::GetFlag(FLAGS_guidance), 0.0, 1e6),
      CheckPluginDirs(absl::GetFlag(FLAGS_plugin_dir)),
      CheckSoftTokenBudget(absl::GetFlag(FLAGS_max_soft_tokens)),
  };
  for (const absl::Status& s : checks) {
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

TextFlags GetTextFlags() {
  TextFlags text;
  text.prompt = absl::GetFlag(FLAGS_prompt);
  text.system = absl::GetFlag(FLAGS_system);
  text.no_system = absl::GetFlag(FLAGS_no_system);
  text.think = absl::GetFlag(FLAGS_think);
  text.raw = absl::GetFlag(FLAGS_raw);
  text.split_special_tokens = absl::GetFlag(FLAGS_split_special_tokens);
  text.print_prompt = absl::GetFlag(FLAGS_print_prompt);
  text.chat = absl::GetFlag(FLAGS_chat);
  text.show_tokens = absl::GetFlag(FLAGS_show_tokens);
  text.profile = absl::GetFlag(FLAGS_profile);
  text.drafting = !absl::GetFlag(FLAGS_draft).empty();
  text.show_drafts = absl::GetFlag(FLAGS_show_drafts);
  text.max_tokens = absl::GetFlag(FLAGS_max_tokens);
  text.dump_logits = absl::GetFlag(FLAGS_dump_logits);
  text.sampling.temperature = static_cast<float>(absl::GetFlag(FLAGS_temp));
  text.sampling.top_k = absl::GetFlag(FLAGS_top_k);
  text.sampling.top_p = static_cast<float>(absl::GetFlag(FLAGS_top_p));
  text.sampling.min_p = static_cast<float>(absl::GetFlag(FLAGS_min_p));
  text.sampling.repetition_penalty = static_cast<float>(absl::GetFlag(FLAGS_repeat_penalty));
  text.sampling.seed = absl::GetFlag(FLAGS_seed);
  text.tools = absl::GetFlag(FLAGS_tools);
  text.messages_file = absl::GetFlag(FLAGS_messages);
  text.tools_file = absl::GetFlag(FLAGS_tools_file);
  text.images = RepeatedImages();
  text.audios = RepeatedAudios();
  text.max_soft_tokens = absl::GetFlag(FLAGS_max_soft_tokens);
  text.dump_soft_tokens = absl::GetFlag(FLAGS_dump_soft_tokens);
  text.media_limits.max_pixels = absl::GetFlag(FLAGS_max_image_pixels);
  text.media_limits.max_audio_seconds = absl::GetFlag(FLAGS_max_audio_seconds);
  return text;
}

ImageFlags GetImageFlags() {
  ImageFlags image;
  image.prompt = absl::GetFlag(FLAGS_prompt);
  image.negative = absl::GetFlag(FLAGS_negative);
  image.steps = absl::GetFlag(FLAGS_steps);
  image.guidance = static_cast<float>(absl::GetFlag(FLAGS_guidance));
  image.sampler = absl::GetFlag(FLAGS_sampler);
  image.size = absl::GetFlag(FLAGS_size);
  image.seed = absl::GetFlag(FLAGS_seed);
  image.output = absl::GetFlag(FLAGS_output);
  image.profile = absl::GetFlag(FLAGS_profile);
  return image;
}

int Main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "serve") return ExecServer(argc, argv);
  absl::SetProgramUsageMessage(
      "local inference for Gemma 4, Qwen 3.5 / 3.8 and Stable Diffusion.\n"
      "  oxinfer --model DIR -p \"Hello\"      generate text\n"
      "  oxinfer --model DIR --chat           interactive chat\n"
      "  oxinfer serve --model DIR [--port N] the OpenAI-compatible HTTP server\n"
      "  oxinfer --devices --plugins          what this machine and its plugins can do\n"
      "  oxinfer --decode FILE -o OUT.png     what a model receives from an image (.wav: audio)");
  std::vector<std::string> args = NormalizeArgs(argc, argv);
  RepeatedImages() = TakeRepeatedFlag(&args, "image");
  RepeatedAudios() = TakeRepeatedFlag(&args, "audio");
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
  if (absl::Status s = CheckFlags(); !s.ok()) {
    std::fprintf(stderr, "oxinfer: %s\n", std::string(s.message()).c_str());
    return 2;
  }
  if (absl::GetFlag(FLAGS_threads) > 0) ThreadPool::SetGlobalThreads(absl::GetFlag(FLAGS_threads));

  const std::string device = absl::GetFlag(FLAGS_device);
  const bool list_plugins = absl::GetFlag(FLAGS_plugins);
  const bool list_devices = absl::GetFlag(FLAGS_devices);
  if (list_devices || list_plugins) {
    const std::unique_ptr<PluginRegistry> plugins =
        engine::DiscoverPlugins(absl::GetFlag(FLAGS_plugin_dir));
    if (list_devices) PrintDevices(*plugins, device);
    if (list_devices && list_plugins) std::printf("\n");
    if (list_plugins) PrintPlugins(*plugins);
    return 0;
  }

  if (!absl::GetFlag(FLAGS_decode).empty()) {
    const std::unique_ptr<PluginRegistry> plugins =
        engine::DiscoverPlugins(absl::GetFlag(FLAGS_plugin_dir));
    DecodeFlags decode;
    decode.input = absl::GetFlag(FLAGS_decode);
    decode.output = absl::GetFlag(FLAGS_output);
    decode.limits.max_pixels = absl::GetFlag(FLAGS_max_image_pixels);
    decode.limits.max_audio_seconds = absl::GetFlag(FLAGS_max_audio_seconds);
    const absl::Status s = RunDecode(*plugins, decode);
    return s.ok() ? 0 : Fail(s);
  }

  auto quant = ParseQuant(absl::GetFlag(FLAGS_quant));
  if (!quant.ok()) return Fail(quant.status());
  auto model_dir = ResolveModelSource(absl::GetFlag(FLAGS_model), absl::GetFlag(FLAGS_cache_dir));
  if (!model_dir.ok()) return Fail(model_dir.status());
  if (absl::GetFlag(FLAGS_download_only)) {
    if (model_dir->empty())
      return Fail(absl::InvalidArgumentError("--download-only needs --model"));
    std::printf("%s\n", model_dir->c_str());
    return 0;
  }
  engine::EngineOptions options;
  options.model_dir = *model_dir;
  options.plugin_dirs = absl::GetFlag(FLAGS_plugin_dir);
  options.device = device;
  options.weight_dtype = *quant;
  options.use_mmap = absl::GetFlag(FLAGS_mmap);
  options.prefill_chunk = absl::GetFlag(FLAGS_prefill_chunk);
  options.context_length = absl::GetFlag(FLAGS_context);
  options.profile = absl::GetFlag(FLAGS_profile);
  options.draft = absl::GetFlag(FLAGS_draft);
  options.draft_tokens = absl::GetFlag(FLAGS_draft_tokens);
  if (options.model_dir.empty() && !DefaultModelDir().empty()) {
    std::fprintf(stderr,
                 "oxinfer: no --model given: running the tiny built-in demonstration model "
                 "(see README.md to run real checkpoints)\n");
  }
  // A folder without weights still renders its prompts.
  if (absl::GetFlag(FLAGS_print_prompt) && !options.model_dir.empty() &&
      !engine::HasWeights(options.model_dir)) {
    const absl::Status s = PrintPromptWithoutModel(options.model_dir, GetTextFlags());
    return s.ok() ? 0 : Fail(s);
  }
  std::unique_ptr<QuantizedWriter> save;
  if (!absl::GetFlag(FLAGS_save_quantized).empty()) {
    auto started = StartSave(absl::GetFlag(FLAGS_save_quantized), *quant, &options);
    if (!started.ok()) return Fail(started.status());
    save = *std::move(started);
  }
  ProgressBar loading("loading");
  options.progress = [&](double done, double total, const std::string& what) {
    loading.Update(done, total, what, "%");
  };
  auto engine = engine::Engine::Open(options);
  loading.Finish();
  if (!engine.ok()) return Fail(engine.status());
  if (save != nullptr) {
    const absl::Status saved = FinishSave(save.get(), **engine);
    if (!saved.ok()) return Fail(saved);
    if (absl::GetFlag(FLAGS_prompt).empty() && !absl::GetFlag(FLAGS_chat)) return 0;
  }
  if (device == "auto" || device.empty()) {
    const BackendChoice& chosen = (*engine)->backends();
    std::fprintf(stderr, "oxinfer: --device auto: %s%s%s\n", chosen.Describe().c_str(),
                 chosen.auto_note.empty() ? "" : "; ", chosen.auto_note.c_str());
  }

  const absl::Status s = (*engine)->model_info().generates_images()
                             ? RunImage(**engine, GetImageFlags())
                             : RunText(**engine, GetTextFlags());
  return s.ok() ? 0 : Fail(s);
}

}  // namespace
}  // namespace oxinfer

int main(int argc, char** argv) { return oxinfer::Main(argc, argv); }
