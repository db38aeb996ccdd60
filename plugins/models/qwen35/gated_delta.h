// Gated DeltaNet kernels, in plain C++ inside the plugin for now.
// TODO(oxinfer): these belong in the backend interface (oxi_backend_iface has no
// conv1d / gated-delta-rule ops yet); move them there with SIMD variants.
//
// Semantics follow transformers models/qwen3_5 (torch_chunk_gated_delta_rule,
// torch_recurrent_gated_delta_rule, causal_conv1d_fn / _update), in float32.
#ifndef OXINFER_PLUGINS_MODELS_QWEN35_GATED_DELTA_H_
#define OXINFER_PLUGINS_MODELS_QWEN35_GATED_DELTA_H_

#include <cstdint>

#include "oxinfer/plugin_abi.h"

namespace oxinfer {
namespace qwen35 {

struct DeltaDims {
  int64_t num_k_heads = 0;  // q/k heads
  int64_t num_v_heads = 0;  // value heads; v head h reads q/k head h / (num_v_heads / num_k_heads)
  int64_t k_dim = 0;        // per head
  int64_t v_dim = 0;        // per head
};

// Depthwise causal conv over time, then SiLU.
//   x:     [n][channels]           new inputs
//   state: [kernel-1][channels]    the previous kernel-1 inputs (zeros at the start);
//                                  updated to the last kernel-1 inputs
//   w:     [channels][kernel]      conv1d.weight squeezed
//   out:   [n][channels]
// out[t][c] = silu(sum_j w[c][j] * xpad[t + j][c]), xpad = state rows then x rows.
void CausalConv1dSilu(const oxi_host_services* host, int64_t n, int64_t channels, int64_t kernel,
                      const float* w, float* state, const float* x, float* out);

// In place: x <- x * rsqrt(sum(x^2) + eps) * scale, per row of dim.
void L2NormRows(float* x, int64_t rows, int64_t dim, float eps, float scale);

// Gated delta rule over n tokens, one token at a time (the recurrent form).
//   q, k:  [n][num_k_heads][k_dim] (q already L2-normalised and scaled, k L2-normalised)
//   v:     [n][num_v_heads][v_dim]
//   g:     [n][num_v_heads] log decay (<= 0); beta: [n][num_v_heads]
//   state: [num_v_heads][k_dim][v_dim], in/out
//   out:   [n][num_v_heads][v_dim]
void GatedDeltaRecurrent(const oxi_host_services* host, const DeltaDims& d, int64_t n,
                         const float* q, const float* k, const float* v, const float* g,
                         const float* beta, float* state, float* out);

// The same result computed chunk by chunk (the chunked / UT-transform form used
// for prefill), chunk_size tokens per chunk (transformers uses 64).
void GatedDeltaChunked(const oxi_host_services* host, const DeltaDims& d, int64_t n,
                       int64_t chunk_size, const float* q, const float* k, const float* v,
                       const float* g, const float* beta, float* state, float* out);

}  // namespace qwen35
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_QWEN35_GATED_DELTA_H_
