// The compute operations the model uses: each goes to the backend's op when the
// backend has it, else to a portable scalar reference here (the ABI lets a
// backend leave any op NULL).
#ifndef OXINFER_PLUGINS_MODELS_QWEN35_OPS_H_
#define OXINFER_PLUGINS_MODELS_QWEN35_OPS_H_

#include <cstdint>
#include <utility>

#include "absl/status/status.h"
#include "oxinfer/plugin.hpp"
#include "oxinfer/plugin_abi.h"

namespace oxinfer {
namespace qwen35 {

class Ops {
 public:
  Ops(const oxi_backend_iface* backend, const oxi_host_services* host) : b_(backend), host_(host) {}

  const oxi_host_services* host() const { return host_; }
  const oxi_backend_iface* backend() const { return b_; }

  // y[m][n] = x[m][k] . W[n][k]
  absl::Status MatMul(const float* x, int64_t m, int64_t k, const void* w, oxi_dtype w_dtype,
                      int64_t n, float* y) const;
  absl::Status Convert(const void* src, oxi_dtype src_dtype, void* dst, oxi_dtype dst_dtype,
                       int64_t rows, int64_t k) const;
  // The storage the backend's matmul prefers for a weight [n][k] wanted as
  // `dtype` (e.g. Q4_0 -> Q4_0x8); `dtype` when it has no preference.
  oxi_dtype MatmulWeightDtype(oxi_dtype dtype, int64_t n, int64_t k) const;
  absl::Status GetRows(const void* table, oxi_dtype dtype, int64_t n_rows, int64_t k,
                       const int32_t* ids, int64_t n_ids, float* out) const;
  absl::Status RmsNorm(const float* x, const float* weight, float weight_offset, int64_t rows,
                       int64_t dim, float eps, float* out) const;
  absl::Status Rope(float* x, int64_t n_tok, int32_t n_heads, int32_t head_dim, int32_t rot_dim,
                    const int32_t* pos, const float* inv_freq) const;
  absl::Status Unary(oxi_unary_op op, const float* x, int64_t n, float* out) const;
  absl::Status Binary(oxi_binary_op op, const float* a, const float* b, int64_t n, int64_t nb,
                      float* out) const;
  absl::Status Attention(const oxi_attention_params& p) const;

 private:
  template <typename F>
  bool Has(F oxi_backend_iface::*field, size_t end_offset) const;

  const oxi_backend_iface* b_;
  const oxi_host_services* host_;
};

// Runs fn(begin, end, thread) over [0, n) on the host pool when there is
// enough work (about `work` multiply-adds) to pay for the hand-off, else inline.
template <typename Fn>
void ParallelIfWorth(const oxi_host_services* host, int64_t n, int64_t work, Fn&& fn) {
  if (work < (int64_t{1} << 16) || n < 2) {
    fn(int64_t{0}, n, int32_t{0});
    return;
  }
  sdk::ParallelFor(host, n, 1, std::forward<Fn>(fn));
}

// Reads element i of a float-typed (F32/BF16/F16) array as float.
float LoadFloat(const void* data, oxi_dtype dtype, int64_t i);

}  // namespace qwen35
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_QWEN35_OPS_H_
