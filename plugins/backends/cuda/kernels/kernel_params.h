// The parameter structs the CUDA kernels take (one struct by value per
// kernel), shared by the host code that launches them (cuda_ops_*.cc) and the
// kernels (kernels/*.cu). Plain C++ with fixed-size members, so both
// compilers lay them out alike.
#ifndef OXINFER_PLUGINS_BACKENDS_CUDA_KERNELS_KERNEL_PARAMS_H_
#define OXINFER_PLUGINS_BACKENDS_CUDA_KERNELS_KERNEL_PARAMS_H_

#include <stdint.h>

namespace oxinfer {
namespace cuda {

// A matrix view in device memory: the address of row 0 (buffer + offset),
// rows x cols elements, row_stride bytes between rows, element type dtype
// (oxi_dtype). ptr 0: an absent optional operand.
struct Mat {
  uint64_t ptr;
  int64_t rows, cols, stride;
  int32_t dtype;
  int32_t pad;
};

struct MatmulParams {
  Mat x, w, bias, y;
  uint64_t xq;  // block types: x quantised to Q8_0 (rows of k/32 blocks, packed)
};

struct QuantizeParams {
  Mat x;
  uint64_t xq;
};

struct UnaryParams {
  Mat x, out;
  int32_t fn;
  float scale, bias;  // SCALE: out = x * scale + bias (fn < 0)
};

struct BinaryParams {
  Mat a, b, out;
  int32_t fn;
};

struct GluParams {
  Mat gate, up, out;
  int32_t act;
};

struct FillParams {
  Mat dst;
  float value;
};

struct CopyParams {
  Mat src, dst;
  int64_t col_offset;  // CONCAT: where src's columns go in dst
};

struct RowsParams {
  Mat table, ids, out;  // GET_ROWS: out[i] = table[ids[i]]; SET_ROWS: out[ids[i]] = table[i]
};

struct NormParams {
  Mat x, weight, bias, out;
  int32_t kind;  // OXI_OP_RMS_NORM, L2_NORM, LAYER_NORM, SOFTMAX
  float eps;
  float weight_offset;  // RMS: (w + offset); L2: the scale; SOFTMAX: the scale
};

struct RopeParams {
  Mat x, pos, inv_freq, out;
  int32_t n_heads, head_dim, rot_dim;
};

struct AttentionParams {
  Mat q, k, v, q_pos, kv_pos, mask, q_span, kv_span, out;
  int32_t n_heads, n_kv_heads, head_dim, v_head_dim;
  float scale, softcap;
  int32_t causal, window, batch;
  int64_t n_q, n_kv;  // per part of the batch
};

struct Conv1dParams {
  Mat x, w, state, out;
  int32_t act;
  uint64_t scratch;  // K-1+n rows of C floats: the state, then x
};

struct GatedDeltaParams {
  Mat q, k, v, g, beta, state, out;
  int32_t n_k_heads, n_v_heads, k_dim, v_dim;
};

struct GroupNormParams {
  Mat x, gamma, beta, out;
  int32_t groups, batch, act;
  float eps;
  uint64_t stats;  // batch * groups (mean, rstd) pairs
};

struct Conv2dParams {
  Mat x, w, bias, out;
  int32_t batch, height, width, cin, cout, kh, kw, stride, pad, ho, wo;
};

struct UpsampleParams {
  Mat x, out;
  int32_t batch, height, width, factor;
};

struct ConvertParams {
  Mat src, dst;
};

}  // namespace cuda
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_BACKENDS_CUDA_KERNELS_KERNEL_PARAMS_H_
