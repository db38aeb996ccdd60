// The generation engine: one per opened checkpoint, shared by every host (the
// CLI, the C embedding API, the HTTP server), which parse their inputs and
// print or serve what it returns.
//
//   EngineOptions options;
//   options.model_dir = "models/Qwen3.5-0.8B";
//   auto engine = Engine::Open(options);            // plugins, backends, model
//   auto session = (*engine)->NewSession({});       // text models: one per conversation
//   (*session)->AddMessage(Message::Text(Role::kUser, "Hello"));
//   auto reply = (*session)->Respond({}, {}, on_event);
//   ...
//   auto image = (*engine)->GenerateImage(request);  // text-to-image models
//
// Open finds the plugins (the folders of EngineOptions::plugin_dirs first),
// chooses the backends for EngineOptions::device (an accelerator, if any,
// with the complete CPU backend behind it), composes them (with profiling and
// the CPU check when asked) and opens the checkpoint with the model plugin
// whose probe claims its folder. For a language model it also reads the
// checkpoint's tokenizer, chat template and stop tokens (checkpoint_text.h).
// The engine knows no model family: everything model-specific comes from the
// checkpoint's files or from the plugin's oxi_model_info.
//
// Threading. Every Engine method is thread-safe. Sessions generate
// concurrently from any threads (session.h); the engine's scheduler thread
// batches their steps into one forward (scheduler.h) and is the only thread
// that calls the model while text is generated. GenerateImage, ProfileReport,
// ResetProfile and CheckReport wait for the model between forwards (the
// model and backend ABIs allow one thread at a time). Every Session must end
// before its Engine.
#ifndef OXINFER_CORE_ENGINE_ENGINE_H_
#define OXINFER_CORE_ENGINE_ENGINE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/backend_dispatch.h"
#include "core/engine/checkpoint_text.h"
#include "core/engine/image.h"
#include "core/engine/model.h"
#include "core/engine/model_info.h"
#include "core/engine/plugins.h"
#include "core/engine/scheduler.h"
#include "core/engine/sequence_pool.h"
#include "core/engine/session.h"
#include "core/gguf/gguf_folder.h"
#include "core/plugin_registry.h"
#include "core/tokenizer/tokenizer.h"

namespace oxinfer::engine {

struct EngineOptions {
  // The checkpoint folder; "": the installation's default model (see
  // core/paths.h), NOT_FOUND when it has none.
  std::string model_dir;
  // Folders searched for plugins first (colon-separated).
  std::string plugin_dirs;
  // "auto", "cpu", "gpu" or a backend plugin's name, each GPU one with an
  // optional ":N" device number (PluginRegistry::ChooseBackends).
  std::string device = "auto";

  oxi_dtype weight_dtype = OXI_DTYPE_INVALID;  // as stored; Q8_0 / Q4_0 quantise at load
  bool use_mmap = false;
  int64_t context_length = 0;  // 0: the model's
  // Tokens per forward block of the plugin, and the longest piece of a
  // prompt one forward carries (so that a long prompt lets the other
  // sessions' steps in between). 0: the backend's (the accelerator's, else
  // the CPU's oxi_backend_iface.prefill_chunk), else 256 (PrefillChunkFor).
  int32_t prefill_chunk = 0;
  // Sessions that can exist at once (the model's max_sequences).
  int32_t max_sessions = 1;

  // Time and bytes per backend operation (ProfileReport).
  bool profile = false;
  // Speculative decoding: "" (none), "mtp" (the checkpoint's own
  // multi-token-prediction head drafts: OXI_MODEL_DRAFT) or the folder of a
  // separate drafter checkpoint the model plugin loads beside the model (ABI
  // 2.3 draft_dir: Gemma 4's assistant). Verification
  // samples every drafted position with the session's own sampler and keeps
  // the drafts while they agree, so replies are those of plain decoding.
  std::string draft;
  // Drafts per round at most (adapting between 2 and this); >= 1.
  int32_t draft_tokens = 6;
  // A host's own drafter (borrowed, outliving the engine) instead of the
  // checkpoint's head; the model is still opened for drafting when `draft`
  // is "mtp" (which lets Qwen 3.5 drop a rejected tail).
  Drafter* drafter = nullptr;
  // Recompute accelerator ops on the CPU (CheckReport); also on when the
  // environment has OXINFER_BACKEND_CHECK=1.
  bool check = false;

  // --save-quantized: every weight the model keeps, as it keeps it, during
  // Open (ModelOpenOptions::record_weight).
  std::function<absl::Status(const oxi_weight_tensor& tensor)> record_weight;

  // Loading progress: `done` of `total` units in the stage `what`, on the
  // thread that called Open.
  std::function<void(double done, double total, const std::string& what)> progress;
};

class Engine {
 public:
  static constexpr int32_t kDefaultPrefillChunk = 256;
  // The prefill chunk for `requested` (> 0: that) on these backends: the
  // accelerator's, else the CPU's; 0 when none asks for one.
  static int32_t PrefillChunkFor(int32_t requested, const BackendChoice& backends);

  static absl::StatusOr<std::unique_ptr<Engine>> Open(const EngineOptions& options);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // ---- what hosts print ----
  // Every plugin file seen, and the folders searched (registry().searched()).
  const PluginRegistry& registry() const { return *registry_; }
  // The accelerator (null when the CPU runs alone) and the CPU fallback.
  const BackendChoice& backends() const { return backends_; }
  // The longest prompt piece per forward (EngineOptions::prefill_chunk
  // resolved; kDefaultPrefillChunk when nothing asked for a size).
  int32_t prefill_chunk() const { return prefill_chunk_; }
  const std::string& model_dir() const { return model_dir_; }
  const std::string& model_plugin() const { return model_->plugin_name(); }
  const ModelInfo& model_info() const { return model_->info(); }
  // The checkpoint's tokenizer (thread-safe); null for image models.
  const tokenizer::Tokenizer* tokenizer() const {
    return text_ != nullptr ? text_->tokenizer.get() : nullptr;
  }
  // How the checkpoint's template writes tool calls (kNone for image models).
  ToolCallFormat tool_call_format() const {
    return text_ != nullptr ? text_->tool_format : ToolCallFormat::kNone;
  }
  // Per op kind and backend since the last reset ("" when not profiling).
  // Loading is not counted.
  std::string ProfileReport() const;
  void ResetProfile();
  // The worst relative error per op kind ("" when not checking).
  std::string CheckReport() const;

  // ---- text ----
  // FAILED_PRECONDITION for a model that does not generate text;
  // RESOURCE_EXHAUSTED when max_sessions sessions exist.
  absl::StatusOr<std::unique_ptr<Session>> NewSession(const SessionOptions& options = {});

  // ---- images ----
  // FAILED_PRECONDITION for a model without OXI_MODEL_IMAGE_OUTPUT.
  absl::StatusOr<Image> GenerateImage(const ImageRequest& request);
  // A codec for the path's extension and a writable folder: call it before
  // generating, so that a bad path fails at once.
  absl::Status CheckImageDestination(const std::string& path) const;
  // Encodes by the path's extension and replaces the file atomically.
  absl::Status WriteImage(const Image& image, const std::string& path) const;
  // The image as a file of `format` ("png") would hold it.
  absl::StatusOr<std::string> EncodeImage(const Image& image, absl::string_view format) const;

 private:
  Engine() = default;

  std::unique_ptr<PluginRegistry> registry_;
  BackendChoice backends_;
  int32_t prefill_chunk_ = kDefaultPrefillChunk;
  std::unique_ptr<ComposedBackend> composed_;
  // --model FILE.gguf: the folder it is staged as (model_dir_ names it).
  std::unique_ptr<gguf::StagedGguf> staged_gguf_;
  std::string model_dir_;
  mutable std::mutex model_mutex_;  // held by whoever calls the model or backend
  std::unique_ptr<Model> model_;
  // Language models only.
  std::unique_ptr<CheckpointText> text_;
  std::unique_ptr<SequencePool> pool_;
  std::unique_ptr<Drafter> drafter_;           // EngineOptions::draft; null: none
  std::unique_ptr<BatchScheduler> scheduler_;  // declared last: stops first
};

}  // namespace oxinfer::engine

#endif  // OXINFER_CORE_ENGINE_ENGINE_H_
