#include "core/engine/model.h"

#include <cstdio>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/host/abi_status.h"
#include "core/limits.h"
#include "core/mapped_file.h"

namespace oxinfer::engine {
namespace {

constexpr size_t kMessageSize = 1024;

// An entry the plugin's table is long enough to have and fills.
#define OXI_MODEL_HAS(iface, field) \
  (OXI_HAS_FIELD((iface), oxi_model_iface, field) && (iface)->field != nullptr)

// The plugin's code and message (its buffer terminated by the host).
absl::Status FromPlugin(int32_t code, char (&message)[kMessageSize], absl::string_view what) {
  return StatusFromPlugin(code, std::string(what), PluginText(message, kMessageSize));
}

void ProgressThunk(void* ctx, double done, double total, const char* what) {
  const auto* options = static_cast<const ModelOpenOptions*>(ctx);
  if (options->progress) options->progress(done, total, what ? what : "");
}

int32_t RecordThunk(void* ctx, const oxi_weight_tensor* tensor, char* error, size_t error_size) {
  const auto* options = static_cast<const ModelOpenOptions*>(ctx);
  const absl::Status s = tensor != nullptr ? options->record_weight(*tensor)
                                           : absl::InvalidArgumentError("record_weight: NULL");
  if (s.ok()) return OXI_OK;
  if (error != nullptr && error_size > 0) {
    std::snprintf(error, error_size, "%s", std::string(s.message()).c_str());
  }
  return static_cast<int32_t>(s.code());
}

// config.json, or a diffusers folder's model_index.json.
absl::StatusOr<std::string> ReadModelConfig(const std::string& model_dir) {
  auto config = ReadFileToString(model_dir + "/config.json", kMaxConfigFileBytes);
  if (config.ok() || !absl::IsNotFound(config.status())) return config;
  auto index = ReadFileToString(model_dir + "/model_index.json", kMaxConfigFileBytes);
  if (index.ok() || !absl::IsNotFound(index.status())) return index;
  return absl::NotFoundError(absl::StrFormat(
      "%s is not a model folder: it has neither config.json nor model_index.json", model_dir));
}

}  // namespace

Model::~Model() {
  if (model_ != nullptr) iface_->close(model_);
}

absl::StatusOr<std::unique_ptr<Model>> Model::Open(const PluginRegistry& registry,
                                                   const std::string& model_dir,
                                                   const oxi_backend_iface* backend,
                                                   const ModelOpenOptions& options) {
  auto config = ReadModelConfig(model_dir);
  if (!config.ok()) return config.status();

  const PluginRecord* best = nullptr;
  int32_t best_score = 0;
  std::string refusals;
  for (const PluginRecord* r : registry.Loaded(OXI_PLUGIN_MODEL)) {
    const auto* iface = static_cast<const oxi_model_iface*>(r->iface);
    if (!OXI_MODEL_HAS(iface, probe)) continue;
    char reason[kMessageSize] = {};
    const int32_t score = iface->probe(model_dir.c_str(), config->c_str(), reason, sizeof reason);
    const std::string why = PluginText(reason, sizeof reason);
    if (score > best_score) {
      best = r;
      best_score = score;
    } else if (score < 0) {
      // Not a score: an error code (or garbage); the checkpoint is not taken.
      absl::StrAppendFormat(&refusals, "\n  %s: probe failed (returned %d)%s%s", r->name, score,
                            why.empty() ? "" : ": ", why);
    } else if (score == 0) {
      absl::StrAppend(&refusals, "\n  ", r->name, ": ", why.empty() ? "not its model" : why);
    }
  }
  if (best == nullptr) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "no model plugin can run %s%s", model_dir,
        refusals.empty() ? " (no model plugin is installed; see `oxinfer --plugins`)" : refusals));
  }

  const auto* iface = static_cast<const oxi_model_iface*>(best->iface);
  if (!OXI_MODEL_HAS(iface, open) || !OXI_MODEL_HAS(iface, close) || !OXI_MODEL_HAS(iface, info)) {
    return absl::InvalidArgumentError(
        absl::StrCat("model plugin ", best->name, " lacks open(), close() or info()"));
  }
  if (!options.draft_dir.empty() && best->abi_minor < 3) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "model plugin %s was built for ABI %u.%u, which has no draft_dir: it cannot load the "
        "drafter in %s (that needs ABI 2.3)",
        best->name, best->abi_major, best->abi_minor, options.draft_dir));
  }
  std::unique_ptr<Model> m(new Model());
  m->iface_ = iface;
  m->plugin_name_ = best->name;
  oxi_model_open_params params = {};
  params.struct_size = sizeof params;
  params.model_dir = model_dir.c_str();
  params.backend = backend;
  params.weight_dtype = options.weight_dtype;
  params.use_mmap = options.use_mmap ? 1 : 0;
  params.context_length = options.context_length;
  params.prefill_chunk = options.prefill_chunk;
  params.max_sequences = options.max_sequences;
  params.progress = &ProgressThunk;
  params.progress_ctx = const_cast<ModelOpenOptions*>(&options);
  params.draft = options.draft ? 1 : 0;
  if (options.record_weight) {
    params.record_weight = &RecordThunk;
    params.record_ctx = const_cast<ModelOpenOptions*>(&options);
  }
  params.draft_dir = options.draft_dir.empty() ? nullptr : options.draft_dir.c_str();
  char error[kMessageSize] = {};
  const int32_t code = iface->open(&params, &m->model_, error, sizeof error);
  if (code != OXI_OK || m->model_ == nullptr) {
    m->model_ = nullptr;
    return FromPlugin(code == OXI_OK ? OXI_INTERNAL : code, error,
                      absl::StrCat(best->name, " could not open ", model_dir));
  }

  oxi_model_info raw = {};
  raw.struct_size = sizeof raw;
  if (const int32_t rc = iface->info(m->model_, &raw); rc != OXI_OK) {
    return StatusFromPlugin(rc, absl::StrCat(best->name, ": info() failed for ", model_dir), "");
  }
  auto info = ModelInfoFromOxi(raw);
  if (!info.ok())
    return absl::Status(info.status().code(),
                        absl::StrCat(best->name, ": ", info.status().message()));
  m->info_ = *std::move(info);
  if (m->info_.generates_text() && !OXI_MODEL_HAS(iface, forward)) {
    return absl::InvalidArgumentError(
        absl::StrCat("model plugin ", best->name, " says it generates text but lacks forward()"));
  }
  if (m->info_.generates_images() &&
      (!OXI_MODEL_HAS(iface, generate_image) || !OXI_MODEL_HAS(iface, free_image))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "model plugin ", best->name, " says it makes images but lacks generate_image()"));
  }
  if (!m->info_.generates_text() && !m->info_.generates_images()) {
    return absl::InvalidArgumentError(
        absl::StrCat("model plugin ", best->name, " opened ", model_dir,
                     " as a model that neither generates text nor makes images"));
  }
  return m;
}

absl::Status Model::Forward(absl::Span<const oxi_batch_entry* const> entries) {
  oxi_forward_args args = {};
  args.struct_size = sizeof args;
  args.n_entries = static_cast<int32_t>(entries.size());
  args.entries = entries.data();
  char error[kMessageSize] = {};
  return FromPlugin(iface_->forward(model_, &args, error, sizeof error), error, plugin_name_);
}

absl::Status Model::TruncateSequence(int32_t seq, int64_t n_keep) {
  if (!OXI_MODEL_HAS(iface_, seq_truncate)) {
    return absl::UnimplementedError(absl::StrCat(plugin_name_, " cannot truncate sequences"));
  }
  char error[kMessageSize] = {};
  return FromPlugin(
      iface_->seq_truncate(model_, seq, n_keep, error, sizeof error), error,
      absl::StrFormat("%s: keeping %d positions of sequence %d", plugin_name_, n_keep, seq));
}

void Model::FreeSequence(int32_t seq) {
  // Optional entries: a model without them keeps no state per sequence.
  if (OXI_MODEL_HAS(iface_, seq_free)) {
    iface_->seq_free(model_, seq);
  } else if (OXI_MODEL_HAS(iface_, seq_truncate)) {
    char error[kMessageSize] = {};
    iface_->seq_truncate(model_, seq, 0, error, sizeof error);
  }
}

bool Model::can_draft() const {
  return (info_.capabilities & OXI_MODEL_DRAFT) != 0 && OXI_MODEL_HAS(iface_, draft);
}

absl::Status Model::Draft(int32_t seq, int32_t next_token, int32_t n, int32_t* tokens,
                          float* logits, float* hidden) {
  if (!can_draft()) {
    return absl::FailedPreconditionError(
        absl::StrCat(plugin_name_, ": this checkpoint has no drafting head of its own"));
  }
  oxi_draft_args args = {};
  args.struct_size = sizeof args;
  args.seq_id = seq;
  args.next_token = next_token;
  args.n_draft = n;
  args.tokens_out = tokens;
  args.logits_out = logits;
  args.hidden_out = hidden;
  char error[kMessageSize] = {};
  const int32_t code = iface_->draft(model_, &args, error, sizeof error);
  if (code != OXI_OK) {
    return FromPlugin(code, error,
                      absl::StrFormat("%s: drafting on sequence %d", plugin_name_, seq));
  }
  for (int32_t i = 0; i < n; ++i) {
    if (tokens[i] < 0 || tokens[i] >= info_.vocab_size) {
      return absl::InternalError(
          absl::StrFormat("%s drafted token %d, outside the vocabulary", plugin_name_, tokens[i]));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Image> Model::GenerateImage(const oxi_image_request& request) {
  if (!info_.generates_images()) {
    return absl::FailedPreconditionError(
        absl::StrCat(plugin_name_, ": this model makes no images"));
  }
  oxi_image out = {};
  out.struct_size = sizeof out;
  char error[kMessageSize] = {};
  const int32_t code = iface_->generate_image(model_, &request, &out, error, sizeof error);
  if (code != OXI_OK) {
    if (out.pixels != nullptr) iface_->free_image(&out);
    return FromPlugin(code, error, plugin_name_);
  }
  Image image;
  image.width = out.width;
  image.height = out.height;
  image.channels = out.channels;
  const bool valid = out.pixels != nullptr && out.width > 0 && out.height > 0 &&
                     out.width <= limits::kMaxImageSide && out.height <= limits::kMaxImageSide &&
                     (out.channels == 1 || out.channels == 3 || out.channels == 4);
  if (valid) {
    image.pixels.assign(out.pixels, out.pixels + static_cast<size_t>(out.width) * out.height *
                                                     static_cast<size_t>(out.channels));
  }
  iface_->free_image(&out);
  if (!valid) {
    return absl::InternalError(absl::StrFormat("%s returned an invalid %dx%dx%d image",
                                               plugin_name_, out.width, out.height, out.channels));
  }
  return image;
}

absl::StatusOr<EncodedMedia> Model::EncodeImage(const Image& image, int32_t max_soft_tokens) {
  if (!(info_.capabilities & OXI_MODEL_IMAGE_INPUT)) {
    return absl::FailedPreconditionError(
        absl::StrCat(plugin_name_, ": this model takes no image input"));
  }
  oxi_media_input in = {};
  in.struct_size = sizeof in;
  in.kind = OXI_MEDIA_IMAGE;
  in.image = ImageView(image);
  in.max_soft_tokens = max_soft_tokens;
  return Encode(in, "encoding an image");
}

absl::StatusOr<EncodedMedia> Model::EncodeAudio(const Audio& audio) {
  if (!(info_.capabilities & OXI_MODEL_AUDIO_INPUT)) {
    return absl::FailedPreconditionError(
        absl::StrCat(plugin_name_, ": this model takes no audio input"));
  }
  oxi_media_input in = {};
  in.struct_size = sizeof in;
  in.kind = OXI_MEDIA_AUDIO;
  in.samples = audio.samples.data();
  in.n_samples = static_cast<int64_t>(audio.samples.size());
  in.sample_rate = audio.sample_rate;
  return Encode(in, "encoding an audio clip");
}

absl::StatusOr<EncodedMedia> Model::Encode(const oxi_media_input& input, const char* what) {
  if (!OXI_MODEL_HAS(iface_, encode_media) || !OXI_MODEL_HAS(iface_, free_media)) {
    return absl::UnimplementedError(absl::StrCat(plugin_name_, " has no encode_media"));
  }
  oxi_media_output out = {};
  out.struct_size = sizeof out;
  char error[kMessageSize] = {};
  const int32_t code = iface_->encode_media(model_, &input, &out, error, sizeof error);
  if (code != OXI_OK) return FromPlugin(code, error, absl::StrCat(plugin_name_, ": ", what));
  EncodedMedia m;
  const bool valid = out.n_tokens > 0 && out.tokens != nullptr && out.embedding_mask != nullptr &&
                     out.embeddings != nullptr && out.hidden_size == info_.hidden_size;
  if (valid) {
    const size_t n = static_cast<size_t>(out.n_tokens);
    m.placeholder = out.placeholder;
    m.tokens.assign(out.tokens, out.tokens + n);
    m.mask.assign(out.embedding_mask, out.embedding_mask + n);
    m.rows.assign(out.embeddings, out.embeddings + n * static_cast<size_t>(out.hidden_size));
    m.n_soft_tokens = out.n_soft_tokens;
  }
  iface_->free_media(&out);
  if (!valid) {
    return absl::InternalError(absl::StrCat(plugin_name_, ": ", what, ": an invalid result"));
  }
  return m;
}

}  // namespace oxinfer::engine
