#include "core/model_instance.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace oxinfer {
namespace {

constexpr size_t kErrorSize = 1024;

absl::Status FromPlugin(int32_t code, const char* message, absl::string_view what) {
  if (code == OXI_OK) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(code),
                      absl::StrCat(what, ": ", message[0] ? message : "(no message)"));
}

void ProgressThunk(void* ctx, double done, double total, const char* what) {
  const auto* options = static_cast<const ModelOpenOptions*>(ctx);
  if (options->progress) options->progress(done, total, what ? what : "");
}

}  // namespace

absl::StatusOr<std::string> ReadTextFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrFormat("%s: cannot open: %s", path, std::strerror(errno)));
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat(path, ": read error"));
  return ss.str();
}

ModelInstance::~ModelInstance() {
  if (model_ != nullptr && iface_->close != nullptr) iface_->close(model_);
}

absl::StatusOr<std::unique_ptr<ModelInstance>> ModelInstance::Open(
    const PluginRegistry& registry, const std::string& model_dir,
    const oxi_backend_iface* backend, const ModelOpenOptions& options) {
  auto config = ReadTextFile(model_dir + "/config.json");
  std::string config_text;
  if (config.ok()) {
    config_text = *std::move(config);
  } else {
    // Diffusers folders have model_index.json instead.
    auto index = ReadTextFile(model_dir + "/model_index.json");
    if (!index.ok()) {
      return absl::NotFoundError(absl::StrFormat(
          "%s is not a model folder: it has neither config.json nor model_index.json", model_dir));
    }
    config_text = *std::move(index);
  }

  const PluginRecord* best = nullptr;
  int32_t best_score = 0;
  std::string refusals;
  for (const PluginRecord* r : registry.Loaded(OXI_PLUGIN_MODEL)) {
    const auto* iface = static_cast<const oxi_model_iface*>(r->iface);
    if (!OXI_HAS_FIELD(iface, oxi_model_iface, probe) || iface->probe == nullptr) continue;
    char reason[kErrorSize] = {};
    const int32_t score = iface->probe(model_dir.c_str(), config_text.c_str(), reason, sizeof reason);
    if (score > best_score) {
      best = r;
      best_score = score;
    } else if (score <= 0) {
      absl::StrAppend(&refusals, "\n  ", r->name, ": ", reason[0] ? reason : "not its model");
    }
  }
  if (best == nullptr) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "no model plugin can run %s%s", model_dir,
        refusals.empty() ? " (no model plugin is installed; see `oxinfer --plugins`)" : refusals));
  }

  std::unique_ptr<ModelInstance> m(new ModelInstance());
  m->iface_ = static_cast<const oxi_model_iface*>(best->iface);
  m->plugin_name_ = best->name;
  oxi_model_open_params params = {};
  params.struct_size = sizeof params;
  params.model_dir = model_dir.c_str();
  params.backend = backend;
  params.weight_dtype = options.weight_dtype;
  params.use_mmap = options.use_mmap ? 1 : 0;
  params.context_length = options.context_length;
  params.prefill_chunk = options.prefill_chunk;
  params.progress = &ProgressThunk;
  params.progress_ctx = const_cast<ModelOpenOptions*>(&options);
  char error[kErrorSize] = {};
  if (m->iface_->open == nullptr) {
    return absl::InternalError(absl::StrCat("model plugin ", best->name, " has no open()"));
  }
  const int32_t code = m->iface_->open(&params, &m->model_, error, sizeof error);
  if (code != OXI_OK || m->model_ == nullptr) {
    return FromPlugin(code == OXI_OK ? OXI_INTERNAL : code, error,
                      absl::StrCat(best->name, " could not open ", model_dir));
  }
  return m;
}

int ModelInstance::vocab_size() const {
  return iface_->vocab_size != nullptr ? iface_->vocab_size(model_) : 0;
}

bool ModelInstance::generates_images() const {
  return OXI_HAS_FIELD(iface_, oxi_model_iface, generate_image) &&
         iface_->generate_image != nullptr;
}

absl::Status ModelInstance::Forward(absl::Span<const int32_t> tokens, absl::Span<float> logits) {
  if (iface_->forward == nullptr) return absl::UnimplementedError("model has no forward()");
  if (!logits.empty() && static_cast<int>(logits.size()) < vocab_size()) {
    return absl::InvalidArgumentError("logits buffer smaller than the vocabulary");
  }
  char error[kErrorSize] = {};
  const int32_t code = iface_->forward(model_, tokens.data(), static_cast<int64_t>(tokens.size()),
                                       logits.empty() ? nullptr : logits.data(), error,
                                       sizeof error);
  return FromPlugin(code, error, plugin_name_);
}

absl::Status ModelInstance::Truncate(int64_t n_keep) {
  if (iface_->truncate == nullptr) return absl::UnimplementedError("model cannot truncate");
  const int32_t code = iface_->truncate(model_, n_keep);
  if (code == OXI_OK) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(code),
                      absl::StrFormat("%s: cannot keep %d tokens", plugin_name_, n_keep));
}

absl::Status ModelInstance::GenerateImage(const oxi_image_request& request, oxi_image* out) {
  if (!generates_images()) {
    return absl::FailedPreconditionError(plugin_name_ + " does not generate images");
  }
  char error[kErrorSize] = {};
  const int32_t code = iface_->generate_image(model_, &request, out, error, sizeof error);
  return FromPlugin(code, error, plugin_name_);
}

void ModelInstance::FreeImage(oxi_image* image) {
  if (OXI_HAS_FIELD(iface_, oxi_model_iface, free_image) && iface_->free_image != nullptr) {
    iface_->free_image(image);
  }
}

}  // namespace oxinfer
