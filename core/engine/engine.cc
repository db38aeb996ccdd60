#include "core/engine/engine.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/engine/image_output.h"
#include "core/gguf/gguf_checkpoint.h"
#include "core/paths.h"
#include "core/quantized_format.h"

namespace oxinfer::engine {
namespace {

const oxi_backend_iface* BackendIface(const PluginRecord* record) {
  return record != nullptr ? static_cast<const oxi_backend_iface*>(record->iface) : nullptr;
}

int32_t ImageProgress(void* ctx, int32_t step, int32_t total) {
  const auto* request = static_cast<const ImageRequest*>(ctx);
  return request->progress(step, total) ? 0 : 1;
}

// The weight type to open with: a --save-quantized folder's own precision
// (--quant absent or the same), refused when --quant asks for another one.
absl::StatusOr<oxi_dtype> WeightDtypeFor(const std::string& model_dir, oxi_dtype asked) {
  absl::StatusOr<oxi_dtype> saved = SavedQuantizedPrecision(model_dir);
  if (!saved.ok() || *saved == OXI_DTYPE_INVALID) return saved.ok() ? asked : saved;
  if (asked == OXI_DTYPE_INVALID || asked == *saved) return *saved;
  return absl::InvalidArgumentError(absl::StrFormat(
      "--quant %s: %s was saved at %s (--save-quantized); load it without --quant (or with "
      "--quant %s), or quantise the original checkpoint",
      oxi_dtype_name(asked), model_dir, oxi_dtype_name(*saved), oxi_dtype_name(*saved)));
}

}  // namespace

Engine::~Engine() = default;

int32_t Engine::PrefillChunkFor(int32_t requested, const BackendChoice& backends) {
  if (requested > 0) return requested;
  for (const PluginRecord* r : {backends.accelerator, backends.cpu}) {
    if (r != nullptr && r->backend.prefill_chunk > 0) return r->backend.prefill_chunk;
  }
  return 0;
}

absl::StatusOr<std::unique_ptr<Engine>> Engine::Open(const EngineOptions& options) {
  // --draft DIR: a separate drafter checkpoint (e.g. Gemma 4's assistant).
  const bool draft_dir = !options.draft.empty() && options.draft != "mtp";
  if (draft_dir && !IsDirectory(options.draft)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "--draft %s: unknown drafter (\"mtp\": the checkpoint's own multi-token-prediction "
        "head; or the folder of a drafter checkpoint, e.g. a gemma4_assistant), and no such "
        "folder",
        options.draft));
  }
  if ((!options.draft.empty() || options.drafter != nullptr) &&
      (options.draft_tokens < 1 || options.draft_tokens > 64)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("--draft-tokens %d: out of range (1 to 64)", options.draft_tokens));
  }
  std::unique_ptr<Engine> e(new Engine());
  e->registry_ = DiscoverPlugins(options.plugin_dirs);

  auto choice = e->registry_->ChooseBackends(options.device);
  if (!choice.ok()) return choice.status();
  e->backends_ = *choice;
  if (absl::Status s = SelectChosenDevice(e->backends_); !s.ok()) return s;
  if (const int32_t chunk = PrefillChunkFor(options.prefill_chunk, e->backends_); chunk > 0) {
    e->prefill_chunk_ = chunk;
  }
  DispatchOptions dispatch;
  dispatch.profile = options.profile;
  dispatch.check = options.check || BackendCheckFromEnvironment();
  auto composed = ComposedBackend::Create(BackendIface(e->backends_.accelerator),
                                          BackendIface(e->backends_.cpu), dispatch);
  if (!composed.ok()) return composed.status();
  e->composed_ = *std::move(composed);

  e->model_dir_ = options.model_dir.empty() ? DefaultModelDir() : options.model_dir;
  if (e->model_dir_.empty()) {
    return absl::NotFoundError("no model folder given, and this installation has no default model");
  }
  if (gguf::IsGgufFile(e->model_dir_)) {
    // A .gguf file: staged as a folder the plugins open like any other.
    auto staged = gguf::StagedGguf::Create(e->model_dir_);
    if (!staged.ok()) return staged.status();
    e->staged_gguf_ = *std::move(staged);
    e->model_dir_ = e->staged_gguf_->dir();
  }
  ModelOpenOptions open;
  auto weight_dtype = WeightDtypeFor(e->model_dir_, options.weight_dtype);
  if (!weight_dtype.ok()) return weight_dtype.status();
  open.weight_dtype = *weight_dtype;
  open.record_weight = options.record_weight;
  open.use_mmap = options.use_mmap;
  open.context_length = options.context_length;
  // 0 leaves the model plugin its own default when neither the flag nor a
  // backend asks for a size.
  open.prefill_chunk = PrefillChunkFor(options.prefill_chunk, e->backends_);
  open.max_sequences = options.max_sessions > 0 ? options.max_sessions : 1;
  open.progress = options.progress;
  open.draft = !options.draft.empty();
  if (draft_dir) open.draft_dir = options.draft;
  auto model = Model::Open(*e->registry_, e->model_dir_, e->composed_->iface(), open);
  if (!model.ok()) {
    if (!open.draft) return model.status();
    return absl::Status(model.status().code(),
                        absl::StrCat("--draft ", options.draft, ": ", model.status().message()));
  }
  e->model_ = *std::move(model);
  if (open.draft && (!e->model_->info().generates_text() || !e->model_->can_draft())) {
    return absl::FailedPreconditionError(
        draft_dir ? absl::StrFormat("--draft %s: %s (model plugin %s) opened no drafter from it",
                                    options.draft, e->model_dir_, e->model_->plugin_name())
                  : absl::StrFormat("--draft mtp: %s (model plugin %s) has no "
                                    "multi-token-prediction head to draft with",
                                    e->model_dir_, e->model_->plugin_name()));
  }
  e->composed_->ResetProfile();

  if (e->model_->info().generates_text()) {
    auto text = LoadCheckpointText(e->model_dir_, e->model_->info());
    if (!text.ok()) return text.status();
    e->text_ = *std::move(text);
    e->pool_ = std::make_unique<SequencePool>(e->model_->info().max_sequences);
    SpeculativeOptions speculative;
    if (open.draft) e->drafter_ = std::make_unique<SelfDrafter>(e->model_.get());
    speculative.drafter = options.drafter != nullptr ? options.drafter : e->drafter_.get();
    speculative.max_draft = options.draft_tokens;
    e->scheduler_ = std::make_unique<BatchScheduler>(e->model_.get(), &e->model_mutex_,
                                                     e->prefill_chunk_, speculative);
  }
  return e;
}

std::string Engine::ProfileReport() const {
  std::lock_guard<std::mutex> lock(model_mutex_);
  return composed_->ProfileReport();
}

void Engine::ResetProfile() {
  std::lock_guard<std::mutex> lock(model_mutex_);
  composed_->ResetProfile();
}

std::string Engine::CheckReport() const {
  std::lock_guard<std::mutex> lock(model_mutex_);
  return composed_->CheckReport();
}

absl::StatusOr<std::unique_ptr<Session>> Engine::NewSession(const SessionOptions& options) {
  if (scheduler_ == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(model_->plugin_name(), " opened ", model_dir_,
                     " as a model that makes images, not text: it has no sessions"));
  }
  if (absl::Status s = options.sampling.Validate(); !s.ok()) return s;
  auto seq = pool_->Acquire();
  if (!seq.ok()) return seq.status();
  SessionContext context;
  context.info = &model_->info();
  context.text = text_.get();
  context.scheduler = scheduler_.get();
  context.pool = pool_.get();
  if (model_->info().capabilities & (OXI_MODEL_IMAGE_INPUT | OXI_MODEL_AUDIO_INPUT)) {
    context.encode_media =
        [this](const ContentPart& part,
               int32_t max_soft_tokens) -> absl::StatusOr<std::shared_ptr<const EncodedMedia>> {
      std::lock_guard<std::mutex> lock(model_mutex_);  // between the scheduler's forwards
      auto e = part.type == ContentPart::Type::kImage
                   ? model_->EncodeImage(*part.image, max_soft_tokens)
                   : model_->EncodeAudio(*part.audio);
      if (!e.ok()) return e.status();
      return std::make_shared<const EncodedMedia>(*std::move(e));
    };
  }
  return std::unique_ptr<Session>(new Session(context, *seq, options.sampling));
}

absl::StatusOr<Image> Engine::GenerateImage(const ImageRequest& request) {
  if (!model_->info().generates_images()) {
    return absl::FailedPreconditionError(
        absl::StrCat(model_->plugin_name(), " opened ", model_dir_,
                     " as a language model: it generates text, not images"));
  }
  if (request.prompt.empty()) return absl::InvalidArgumentError("no prompt for the image");
  if (request.width < 0 || request.height < 0 || request.steps < 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("image size %dx%d and %d steps: none may be negative", request.width,
                        request.height, request.steps));
  }
  oxi_image_request req = {};
  req.struct_size = sizeof req;
  req.prompt = request.prompt.c_str();
  req.negative_prompt = request.negative_prompt.c_str();
  req.steps = request.steps;
  req.guidance = request.guidance;
  req.sampler = request.sampler.empty() ? nullptr : request.sampler.c_str();
  req.width = request.width;
  req.height = request.height;
  req.seed = request.seed;
  if (request.progress) {
    req.progress = &ImageProgress;
    req.progress_ctx = const_cast<ImageRequest*>(&request);
  }
  std::lock_guard<std::mutex> lock(model_mutex_);
  return model_->GenerateImage(req);
}

absl::Status Engine::CheckImageDestination(const std::string& path) const {
  return engine::CheckImageDestination(*registry_, path);
}

absl::Status Engine::WriteImage(const Image& image, const std::string& path) const {
  return WriteImageFile(*registry_, image, path);
}

absl::StatusOr<std::string> Engine::EncodeImage(const Image& image,
                                                absl::string_view format) const {
  return engine::EncodeImage(*registry_, image, format);
}

}  // namespace oxinfer::engine
