// The operations the Stable Diffusion networks are made of, on activations
// stored channels-last ([batch][height][width][channels], float32), so that
// every convolution becomes an im2col gather and the backend's matmul.
// Ops the backend table provides run there; a NULL entry falls back to the
// portable loops in sd_ops.cc (so the plugin also runs on a partial table).
#ifndef OXINFER_PLUGINS_MODELS_SD_SD_OPS_H_
#define OXINFER_PLUGINS_MODELS_SD_SD_OPS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "oxinfer/plugin_abi.h"

namespace oxinfer {
namespace sd {

// A channels-last activation [n][h][w][c]; a token sequence is [n][1][len][c].
struct Act {
  int64_t n = 0, h = 0, w = 0, c = 0;
  std::vector<float> d;
  Act() = default;
  Act(int64_t n_, int64_t h_, int64_t w_, int64_t c_)
      : n(n_), h(h_), w(w_), c(c_), d(static_cast<size_t>(n_ * h_ * w_ * c_)) {}
  int64_t rows() const { return n * h * w; }
  int64_t size() const { return n * h * w * c; }
  float* data() { return d.data(); }
  const float* data() const { return d.data(); }
};

// y = x W^T + b with W [out][in] (HF Linear layout). The weights are held
// as f32 (w) or, to halve memory, f16 / bf16 (w16), as the backend's matmul
// takes them; the bias is f32.
struct Linear {
  int64_t in = 0, out = 0;
  oxi_dtype dtype = OXI_DTYPE_F32;
  std::vector<float> w;       // [out][in] when dtype is F32
  std::vector<uint16_t> w16;  // [out][in] when dtype is F16 or BF16
  std::vector<float> b;       // [out] or empty
  // Converts the weights to `dtype` (F32, F16 or BF16; others: F32).
  void StoreAs(oxi_dtype dtype);
};

// A 2-D convolution stored as a Linear over the im2col row: W [out][kh][kw][in].
struct Conv {
  int64_t kh = 1, kw = 1, stride = 1, pad = 0;
  Linear lin;  // in = kh * kw * cin
  int64_t cin = 0;
};

// Affine parameters of a GroupNorm or LayerNorm.
struct Norm {
  std::vector<float> gamma, beta;
  float eps = 1e-5f;
  int64_t groups = 1;  // GroupNorm only
};

class Ops {
 public:
  Ops(const oxi_backend_iface* backend, const oxi_host_services* host)
      : be_(backend), host_(host) {}

  // y[m][out] = x[m][in] W^T + b.
  absl::Status MatMul(const float* x, int64_t m, const Linear& l, float* y) const;
  absl::Status Apply(const Act& x, const Linear& l, Act* y) const;  // over the last dim
  // Channels-last convolution (zero padding).
  absl::Status Conv2d(const Act& x, const Conv& conv, Act* y) const;
  // GroupNorm over (h, w, c/groups) per sample, optionally followed by SiLU.
  absl::Status GroupNorm(const Act& x, const Norm& nrm, bool silu, Act* y) const;
  // LayerNorm over the last dim.
  absl::Status LayerNorm(const Act& x, const Norm& nrm, Act* y) const;
  // Multi-head attention: q [n][lq][heads*dh], k/v [n][lk][heads*dh] (in Act
  // layout, h = 1); out like q. causal: token i sees keys <= i.
  absl::Status Attention(const Act& q, const Act& k, const Act& v, int64_t heads, bool causal,
                         Act* out) const;
  absl::Status Unary(oxi_unary_op op, float* x, int64_t n) const;  // in place
  absl::Status QuickGelu(float* x, int64_t n) const;               // x * sigmoid(1.702 x)
  // a += b (same size).
  absl::Status AddInPlace(float* a, const float* b, int64_t n) const;
  // x[row][i] += b[i] for rows of n_b.
  absl::Status AddBroadcast(float* x, int64_t n, const float* b, int64_t n_b) const;
  // Nearest-neighbour 2x upsampling.
  static Act Upsample2x(const Act& x);
  // Concatenation along channels.
  static Act ConcatChannels(const Act& a, const Act& b);

  const oxi_host_services* host() const { return host_; }

 private:
  absl::Status AttentionGemm(const Act& q, const Act& k, const Act& v, int64_t heads,
                             Act* out) const;

  const oxi_backend_iface* be_;
  const oxi_host_services* host_;
};

// Turns a backend status into an absl::Status naming the op.
absl::Status BackendStatus(int32_t code, const char* op);

}  // namespace sd
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_SD_SD_OPS_H_
