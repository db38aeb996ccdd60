// A model opened through a model plugin: finds the plugin whose probe claims
// the checkpoint folder, opens it on a backend, and owns the instance.
#ifndef OXINFER_CORE_MODEL_INSTANCE_H_
#define OXINFER_CORE_MODEL_INSTANCE_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/plugin_registry.h"
#include "oxinfer/plugin_abi.h"

namespace oxinfer {

struct ModelOpenOptions {
  oxi_dtype weight_dtype = OXI_DTYPE_INVALID;  // as stored; Q8_0 / Q4_0 quantise at load
  bool use_mmap = false;
  int context_length = 0;
  int prefill_chunk = 0;
  // Loading progress: done of total in the stage `what`.
  std::function<void(double done, double total, const std::string& what)> progress;
};

class ModelInstance {
 public:
  ~ModelInstance();
  ModelInstance(const ModelInstance&) = delete;
  ModelInstance& operator=(const ModelInstance&) = delete;

  // Reads model_dir/config.json, asks every loaded model plugin to probe it,
  // and opens the checkpoint with the best. Errors name the folder and, when
  // no plugin claims it, what each plugin said.
  static absl::StatusOr<std::unique_ptr<ModelInstance>> Open(const PluginRegistry& registry,
                                                             const std::string& model_dir,
                                                             const oxi_backend_iface* backend,
                                                             const ModelOpenOptions& options);

  const std::string& plugin_name() const { return plugin_name_; }
  int vocab_size() const;
  bool generates_images() const;

  // Appends tokens; fills logits (vocab_size floats) for the last one when
  // non-empty.
  absl::Status Forward(absl::Span<const int32_t> tokens, absl::Span<float> logits);
  // Keeps the first n tokens; UNIMPLEMENTED when the model cannot rewind.
  absl::Status Truncate(int64_t n_keep);

  absl::Status GenerateImage(const oxi_image_request& request, oxi_image* out);
  void FreeImage(oxi_image* image);

 private:
  ModelInstance() = default;

  const oxi_model_iface* iface_ = nullptr;
  oxi_model* model_ = nullptr;
  std::string plugin_name_;
};

// The text of a file, or NOT_FOUND / an error naming it.
absl::StatusOr<std::string> ReadTextFile(const std::string& path);

}  // namespace oxinfer

#endif  // OXINFER_CORE_MODEL_INSTANCE_H_
