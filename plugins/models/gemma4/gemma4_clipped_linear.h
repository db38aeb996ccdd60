// Gemma 4's clippable linear layers (vision and audio towers): a bias-free
// linear whose input and output may be clamped to bounds stored beside its
// weight (input_min / input_max / output_min / output_max).
#ifndef OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_CLIPPED_LINEAR_H_
#define OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_CLIPPED_LINEAR_H_

#include <cstdint>
#include <limits>
#include <string>

#include "oxinfer/sdk/compute.hpp"
#include "oxinfer/sdk/status.hpp"
#include "oxinfer/sdk/weights.hpp"

namespace oxinfer {
namespace gemma4 {

// A linear layer with its optional input and output bounds (infinite: none).
struct ClippedLinear {
  sdk::OwnedTensor w;
  float in_lo = -std::numeric_limits<float>::infinity();
  float in_hi = std::numeric_limits<float>::infinity();
  float out_lo = -std::numeric_limits<float>::infinity();
  float out_hi = std::numeric_limits<float>::infinity();
};

// `name`.linear.weight [n][k] held as dtype (OXI_DTYPE_INVALID: as stored),
// with the bounds where `clipped` and the checkpoint has them.
sdk::StatusOr<ClippedLinear> LoadClippedLinear(const sdk::Compute& cx, const sdk::Weights& file,
                                               const std::string& name, int64_t n, int64_t k,
                                               bool clipped, oxi_dtype dtype);

// y = clamp(clamp(x) w^T), the clamps where the layer has bounds; the
// clamped input goes to scratch.
sdk::Status ApplyClippedLinear(const sdk::Compute& cx, sdk::Scratch* scratch,
                               const ClippedLinear& l, const sdk::Tensor& x, const sdk::Tensor& y);

}  // namespace gemma4
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_GEMMA4_GEMMA4_CLIPPED_LINEAR_H_
