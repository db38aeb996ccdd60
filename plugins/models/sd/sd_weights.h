// Reads one diffusers component (unet/, vae/, text_encoder/) into float32
// Linear / Conv / Norm parameters. Accepts f32, f16 and bf16 tensors, the
// fp16 variant file name, the "text_model." prefix of older CLIP files and the
// old VAE attention names (query/key/value/proj_attn).
#ifndef OXINFER_PLUGINS_MODELS_SD_SD_WEIGHTS_H_
#define OXINFER_PLUGINS_MODELS_SD_SD_WEIGHTS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/safetensors.h"
#include "plugins/models/sd/sd_ops.h"

namespace oxinfer {
namespace sd {

class WeightStore {
 public:
  // component_dir holds diffusion_pytorch_model[.fp16].safetensors or
  // model[.fp16].safetensors (or a sharded index of either).
  // storage: the dtype Linear / Conv weights are held in: F32, F16 or BF16;
  // OXI_DTYPE_INVALID keeps f16 and bf16 tensors as stored (f32 otherwise).
  static absl::StatusOr<WeightStore> Open(const std::string& component_dir,
                                          oxi_dtype storage = OXI_DTYPE_F32);

  bool Has(const std::string& name) const { return Resolve(name) != nullptr; }
  // Any float tensor as f32, with its shape.
  absl::StatusOr<std::vector<float>> Floats(const std::string& name,
                                            std::vector<int64_t>* shape = nullptr) const;
  // prefix.weight [out][in] (or [out][in][1][1]) and, if present, prefix.bias.
  absl::StatusOr<Linear> GetLinear(const std::string& prefix) const;
  // prefix.weight [out][in][kh][kw] reordered to [out][kh][kw][in].
  absl::StatusOr<Conv> GetConv(const std::string& prefix, int64_t stride, int64_t pad) const;
  absl::StatusOr<Norm> GetNorm(const std::string& prefix, float eps, int64_t groups = 1) const;

  const std::string& source() const { return source_; }

 private:
  const TensorInfo* Resolve(const std::string& name, std::string* resolved = nullptr) const;
  // The storage dtype for a weight read from a tensor of `stored`.
  oxi_dtype StorageFor(oxi_dtype stored) const;
  oxi_dtype storage_ = OXI_DTYPE_F32;
  std::string source_;
  std::shared_ptr<ModelWeights> weights_;
};

}  // namespace sd
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_SD_SD_WEIGHTS_H_
