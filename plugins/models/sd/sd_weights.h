// One diffusers component's checkpoint (unet/, vae/, text_encoder/) opened
// through the host, its layers loaded onto the backend: f32 / f16 / bf16
// matrices as stored or converted to the dtype the host asked for; norms and
// biases f32. Accepts the .fp16 variant file names, the "text_model." prefix
// of older CLIP files and the old VAE attention names (query / key / value /
// proj_attn).
#ifndef OXINFER_PLUGINS_MODELS_SD_SD_WEIGHTS_H_
#define OXINFER_PLUGINS_MODELS_SD_SD_WEIGHTS_H_

#include <string>
#include <vector>

#include "oxinfer/sdk/compute.hpp"
#include "oxinfer/sdk/status.hpp"
#include "oxinfer/sdk/weights.hpp"
#include "plugins/models/sd/layers.h"

namespace oxinfer {
namespace sd {

class ComponentWeights {
 public:
  // component_dir holds diffusion_pytorch_model[.fp16].safetensors or
  // model[.fp16].safetensors (or a sharded index of either). matrix_dtype:
  // F32, F16 or BF16 to convert the matrices to; OXI_DTYPE_INVALID keeps
  // them as stored.
  static sdk::StatusOr<ComponentWeights> Open(const std::string& component_dir,
                                              const sdk::Compute* cx, oxi_dtype matrix_dtype,
                                              bool use_mmap);
  // The file Open would read (nothing opened), NOT_FOUND naming what was looked for.
  static sdk::StatusOr<std::string> Locate(const std::string& component_dir);

  // What the layers' buffers may point into: keep it until they are freed.
  const sdk::Weights& weights() const { return weights_; }
  const std::string& source() const { return source_; }

  bool Has(const std::string& name) const { return Resolve(name) != nullptr; }
  // The tensor (under any accepted name), NOT_FOUND naming the checkpoint.
  sdk::StatusOr<const oxi_weight_tensor*> Get(const std::string& name) const;
  // A float tensor's values as f32.
  sdk::StatusOr<std::vector<float>> Floats(const std::string& name) const;

  // prefix.weight [out][in] (or [out][in][1][1]) and prefix.bias if present.
  sdk::StatusOr<Linear> LoadLinear(const std::string& prefix) const;
  // prefix.weight [out][in][kh][kw], reordered to [out][kh][kw][in].
  sdk::StatusOr<Conv> LoadConv(const std::string& prefix, int64_t stride, int64_t pad) const;
  // prefix.weight (and prefix.bias) of a norm over `dim` channels.
  sdk::StatusOr<Norm> LoadNorm(const std::string& prefix, float eps, int32_t groups = 1) const;
  // A [rows][cols] matrix as the matrices are held (embedding tables).
  sdk::StatusOr<sdk::OwnedTensor> LoadMatrix(const std::string& name, int64_t rows,
                                             int64_t cols) const;
  // A float tensor of n values resident as [1][n] f32.
  sdk::StatusOr<sdk::OwnedTensor> LoadF32(const std::string& name, int64_t n) const;

 private:
  const oxi_weight_tensor* Resolve(const std::string& name) const;
  sdk::StatusOr<sdk::OwnedTensor> LoadBias(const std::string& name, int64_t n) const;
  oxi_dtype Want(const oxi_weight_tensor* t) const {
    return matrix_dtype_ == OXI_DTYPE_INVALID ? static_cast<oxi_dtype>(t->dtype) : matrix_dtype_;
  }

  const sdk::Compute* cx_ = nullptr;
  oxi_dtype matrix_dtype_ = OXI_DTYPE_INVALID;
  std::string source_;
  sdk::Weights weights_;
};

}  // namespace sd
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_SD_SD_WEIGHTS_H_
