// The layers the Stable Diffusion networks are made of (linear, convolution,
// group / layer norm, attention, GEGLU, upsampling, skip concatenation), as
// backend operations on channels-last activations. Parameters live on the
// backend (sd_weights.h loads them); nothing here computes on the host.
#ifndef OXINFER_PLUGINS_MODELS_SD_LAYERS_H_
#define OXINFER_PLUGINS_MODELS_SD_LAYERS_H_

#include <cstdint>

#include "oxinfer/sdk/compute.hpp"
#include "oxinfer/sdk/status.hpp"
#include "plugins/models/sd/activations.h"

namespace oxinfer {
namespace sd {

// y = x W^T + b, W [out][in] (the HF Linear layout, or a 1x1 convolution's).
struct Linear {
  int64_t in = 0, out = 0;
  sdk::OwnedTensor w;     // [out][in], f32 / f16 / bf16
  sdk::OwnedTensor bias;  // [1][out] f32, or empty
};

// A 2-D convolution with zero padding; W row o is output channel o's kernel
// in (ky, kx, ci) order, as the conv2d op reads it.
struct Conv {
  int64_t cin = 0, cout = 0, kh = 1, kw = 1, stride = 1, pad = 0;
  sdk::OwnedTensor w;     // [cout][kh * kw * cin]
  sdk::OwnedTensor bias;  // [1][cout] f32, or empty
  // A 1x1 convolution is a matmul over the channels.
  bool pointwise() const { return kh == 1 && kw == 1 && stride == 1 && pad == 0; }
};

// The affine parameters of a GroupNorm (groups > 1) or LayerNorm.
struct Norm {
  int64_t dim = 0;
  int32_t groups = 1;
  float eps = 1e-5f;
  sdk::OwnedTensor gamma, beta;  // [1][dim] f32; beta may be empty
};

// The operations on activations; outputs come from the pool.
class Net {
 public:
  explicit Net(ActPool* pool) : pool_(pool), cx_(&pool->cx()) {}

  const sdk::Compute& cx() const { return *cx_; }
  ActPool* pool() const { return pool_; }
  sdk::StatusOr<Act> New(int64_t n, int64_t h, int64_t w, int64_t c) const {
    return pool_->New(n, h, w, c);
  }

  // x [..][in] -> [..][out] (bias included).
  sdk::StatusOr<Act> Apply(const Act& x, const Linear& l) const;
  sdk::StatusOr<Act> Convolve(const Act& x, const Conv& conv) const;
  // GroupNorm over each image (then SiLU when asked).
  sdk::StatusOr<Act> GroupNorm(const Act& x, const Norm& norm, bool silu) const;
  sdk::Status GroupNormInPlace(Act* x, const Norm& norm, bool silu) const;
  sdk::StatusOr<Act> LayerNorm(const Act& x, const Norm& norm) const;
  // Multi-head attention of each image's (sequence's) q rows on its k / v
  // rows: q [n][lq][heads*d], k / v [n][lk][heads*d]. causal: query i sees
  // keys 0..i.
  sdk::StatusOr<Act> Attention(const Act& q, const Act& k, const Act& v, int64_t heads,
                               bool causal) const;
  // diffusers' GEGLU: f [..][2*inner] -> f[:, :inner] * gelu(f[:, inner:]).
  sdk::StatusOr<Act> Geglu(const Act& f) const;
  sdk::Status UnaryInPlace(oxi_unary_op fn, Act* x) const;
  sdk::StatusOr<Act> Unary(oxi_unary_op fn, const Act& x) const;
  // a += b (same shape).
  sdk::Status AddInPlace(Act* a, const Act& b) const;
  // a's image i += row i of rows ([a.n][1][1][a.c]): per-image channel offsets.
  sdk::Status AddPerImage(Act* a, const Act& rows) const;
  // Nearest-neighbour 2x upsampling of each image.
  sdk::StatusOr<Act> Upsample2x(const Act& x) const;
  // torch's nearest interpolation of each image to out_h x out_w (src =
  // floor(dst * in / out)), for out sizes of 2 in or 2 in - 1 per side: what a
  // UNet's upsampler does when a side was odd before a stride-2 convolution.
  sdk::StatusOr<Act> UpsampleNearestTo(const Act& x, int64_t out_h, int64_t out_w) const;
  // Channels of a followed by channels of b, per pixel.
  sdk::StatusOr<Act> Concat(const Act& a, const Act& b) const;

 private:
  ActPool* pool_;
  const sdk::Compute* cx_;
};

}  // namespace sd
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_SD_LAYERS_H_
