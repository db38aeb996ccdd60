/* oxinfer plugin ABI 2: backend operations as data.
 *
 * An operation is an argument struct that starts with an oxi_op header, then
 * its tensor operands (inputs first, outputs last, as the header counts
 * them), then its scalars. Backends execute them (oxi_backend_iface.execute)
 * and say per call whether they can (supports). Because the header counts the
 * operands, a host can place, copy, time and check any operation without
 * knowing it.
 *
 * Adding an operation: a kind below, its struct, the CPU reference
 * (plugins/backends/cpu) and its test. Arguments grow at the end of a struct
 * only; a reader checks struct_size (OXI_HAS_FIELD) for fields newer than the
 * op's first version and treats absent ones as zero.
 *
 * Conventions for every operation:
 *   - A tensor is a matrix of rows x cols elements of one dtype (oxi_tensor);
 *     ops with more structure (heads, images) say how they read its columns.
 *     Its offset and row_stride are multiples of the element size (2 bytes
 *     for the block types, whose scales are f16).
 *   - Activations are F32 unless said otherwise. Index tensors are I32 [1][n].
 *   - Optional operands have buffer == NULL.
 *   - An output may be the same tensor as an input (identical buffer, offset
 *     and shape) where the op says "in place"; otherwise outputs overlap no
 *     input. Outputs are only written, except where the op says they are read
 *     (states, caches).
 *   - Shapes or dtypes an op does not accept give OXI_INVALID_ARGUMENT (or
 *     OXI_UNIMPLEMENTED for a valid combination this backend lacks, which
 *     supports() reports beforehand) with a message naming the op and operand.
 */
#ifndef OXINFER_OPS_H_
#define OXINFER_OPS_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "oxinfer/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Memory owned by a backend (oxi_backend_iface.buffer_alloc); opaque. */
typedef struct oxi_buffer oxi_buffer;

/* A matrix view into a buffer. Element [r][c] of a plain type lies at
 * offset + r * row_stride + c * element size. The block types (Q8_0, Q4_0)
 * hold a row as cols / 32 blocks; the row-interleaved _X8 types are packed
 * (row_stride 0) and start and end on a group of 8 rows. */
typedef struct oxi_tensor {
  oxi_buffer* buffer; /* NULL: an absent optional operand */
  uint64_t offset;    /* bytes from the start of the buffer to row 0 */
  int32_t dtype;      /* oxi_dtype */
  int32_t reserved;   /* 0 */
  int64_t rows;
  int64_t cols;
  int64_t row_stride; /* bytes from one row to the next; 0: packed */
} oxi_tensor;

/* The header every operation's argument struct starts with. */
typedef struct oxi_op {
  uint32_t struct_size;  /* of the whole argument struct */
  uint16_t kind;         /* oxi_op_kind */
  uint8_t n_tensors;     /* oxi_tensor operands directly after this header */
  uint8_t n_outputs;     /* the last n_outputs of them are outputs */
  uint32_t outputs_read; /* bit i set: output i (0 = the first output) is also read */
  uint32_t reserved;
} oxi_op;

#ifdef __cplusplus
static_assert(sizeof(oxi_op) == 16 && sizeof(oxi_tensor) == 48, "oxi_op / oxi_tensor layout");
#else
_Static_assert(sizeof(oxi_op) == 16 && sizeof(oxi_tensor) == 48, "oxi_op / oxi_tensor layout");
#endif

/* Operand i of an operation (0 <= i < op->n_tensors). The operands start
 * right after the 16-byte header in every argument struct. */
static inline const oxi_tensor* oxi_op_tensor(const oxi_op* op, int i) {
  return (const oxi_tensor*)((const char*)op + sizeof(oxi_op)) + i;
}

/* Bytes from a tensor's first byte to one past its last: what it touches. */
static inline int64_t oxi_tensor_extent(const oxi_tensor* t) {
  int64_t row = oxi_dtype_row_bytes((oxi_dtype)t->dtype, t->cols);
  if (row < 0 || t->rows < 0) return -1;
  if (t->rows == 0) return 0;
  if (t->row_stride == 0) return row * t->rows;
  return t->row_stride * (t->rows - 1) + row;
}

/* The byte distance between rows (row_stride, or the packed row size). */
static inline int64_t oxi_tensor_stride(const oxi_tensor* t) {
  return t->row_stride != 0 ? t->row_stride : oxi_dtype_row_bytes((oxi_dtype)t->dtype, t->cols);
}

typedef enum oxi_op_kind {
  OXI_OP_MATMUL = 1,
  OXI_OP_CONVERT = 2,
  OXI_OP_GET_ROWS = 3,
  OXI_OP_SET_ROWS = 4,
  OXI_OP_COPY = 5,
  OXI_OP_FILL = 6,
  OXI_OP_CONCAT = 7,
  OXI_OP_UNARY = 8,
  OXI_OP_BINARY = 9,
  OXI_OP_SCALE = 10,
  OXI_OP_GLU = 11,
  OXI_OP_SOFTMAX = 12,
  OXI_OP_RMS_NORM = 13,
  OXI_OP_L2_NORM = 14,
  OXI_OP_LAYER_NORM = 15,
  OXI_OP_GROUP_NORM = 16,
  OXI_OP_ROPE = 17,
  OXI_OP_ATTENTION = 18,
  OXI_OP_CONV1D_CAUSAL = 19,
  OXI_OP_GATED_DELTA = 20,
  OXI_OP_CONV2D = 21,
  OXI_OP_UPSAMPLE_NEAREST = 22,
  /* ABI 2.1 */
  OXI_OP_CLAMP = 23,
  OXI_OP_AVG_POOL2D = 24,
  OXI_OP_LOCAL_ATTENTION = 25,
  OXI_OP_KIND_COUNT = 26 /* one past the last kind of this ABI version */
} oxi_op_kind;

/* Element-wise functions (UNARY, GLU, and the activations of the norms and convolutions). */
typedef enum oxi_unary_op {
  OXI_UNARY_NONE = 0,      /* identity (where an activation is optional) */
  OXI_UNARY_GELU_TANH = 1, /* 0.5x(1+tanh(sqrt(2/pi)(x+0.044715x^3))) */
  OXI_UNARY_SILU = 2,      /* x*sigmoid(x) */
  OXI_UNARY_SIGMOID = 3,
  OXI_UNARY_SOFTPLUS = 4, /* log(1+exp(x)), = x above 20 as in torch */
  OXI_UNARY_EXP = 5,
  OXI_UNARY_TANH = 6,
  OXI_UNARY_GELU_ERF = 7,   /* 0.5x(1+erf(x/sqrt 2)) */
  OXI_UNARY_QUICK_GELU = 8, /* x*sigmoid(1.702x) (CLIP) */
  OXI_UNARY_RELU = 9,
} oxi_unary_op;

typedef enum oxi_binary_op {
  OXI_BINARY_ADD = 1,
  OXI_BINARY_SUB = 2,
  OXI_BINARY_MUL = 3,
  OXI_BINARY_DIV = 4,
} oxi_binary_op;

/* y[m][n] = sum_k x[m][k] * w[n][k] (+ bias[n]): f32 activations times a weight
 * matrix in the HF Linear layout, stored as F32, BF16, F16, Q8_0, Q4_0,
 * Q8_0_X8 or Q4_0_X8. For the block types each activation row is first
 * quantised to Q8_0 (as ggml does), so k is a multiple of 32. */
typedef struct oxi_matmul_args {
  oxi_op op;       /* OXI_OP_MATMUL, 4 tensors, 1 output */
  oxi_tensor x;    /* [m][k] f32 */
  oxi_tensor w;    /* [n][k] */
  oxi_tensor bias; /* optional [1][n] f32 */
  oxi_tensor y;    /* [m][n] f32 */
} oxi_matmul_args;

/* dst = src converted: any float type (F32/BF16/F16) to any type matmul
 * takes, the block types to floats, plain <-> _X8. Q8_0 / Q4_0 quantisation
 * is bit-exact with GGUF's reference (scales absmax/127 and max/-8). */
typedef struct oxi_convert_args {
  oxi_op op; /* OXI_OP_CONVERT, 2 tensors, 1 output */
  oxi_tensor src; /* [rows][cols] */
  oxi_tensor dst; /* [rows][cols] */
} oxi_convert_args;

/* out[i] = table[ids[i]] as f32 (an embedding lookup); table of any type
 * matmul takes. An id outside [0, table.rows) is OXI_INVALID_ARGUMENT. */
typedef struct oxi_get_rows_args {
  oxi_op op;         /* OXI_OP_GET_ROWS, 3 tensors, 1 output */
  oxi_tensor table;  /* [n_rows][k] */
  oxi_tensor ids;    /* [1][n] i32 */
  oxi_tensor out;    /* [n][k] f32 */
} oxi_get_rows_args;

/* dst[ids[i]] = src[i], converted to dst's type (F32, F16, BF16); the other
 * rows of dst keep their values (a KV cache's ring slots). Of repeated ids
 * the last row wins. */
typedef struct oxi_set_rows_args {
  oxi_op op;       /* OXI_OP_SET_ROWS, 3 tensors, 1 output (also read) */
  oxi_tensor src;  /* [n][k] f32 */
  oxi_tensor ids;  /* [1][n] i32 */
  oxi_tensor dst;  /* [n_rows][k] */
} oxi_set_rows_args;

/* dst = src, element by element: same shape; same dtype (any, bytes copied),
 * or between F32, F16 and BF16 (converted, round to nearest even). */
typedef struct oxi_copy_args {
  oxi_op op; /* OXI_OP_COPY, 2 tensors, 1 output */
  oxi_tensor src;
  oxi_tensor dst;
} oxi_copy_args;

/* Every element of dst = value (F32, F16, BF16; I32 takes (int32_t)value). */
typedef struct oxi_fill_args {
  oxi_op op; /* OXI_OP_FILL, 1 tensor, 1 output */
  oxi_tensor dst;
  float value;
  int32_t reserved;
} oxi_fill_args;

/* out[r] = a[r] followed by b[r] (columns joined; channels of channels-last
 * images). Same dtype throughout. */
typedef struct oxi_concat_args {
  oxi_op op; /* OXI_OP_CONCAT, 3 tensors, 1 output */
  oxi_tensor a;   /* [rows][ca] */
  oxi_tensor b;   /* [rows][cb] */
  oxi_tensor out; /* [rows][ca + cb] */
} oxi_concat_args;

/* out = f(x); in place. */
typedef struct oxi_unary_args {
  oxi_op op; /* OXI_OP_UNARY, 2 tensors, 1 output */
  oxi_tensor x;
  oxi_tensor out;
  int32_t fn; /* oxi_unary_op */
  int32_t reserved;
} oxi_unary_args;

/* out[r][c] = a[r][c] op b[r'][c'], where b has 1 or a.rows rows and 1 or
 * a.cols columns (broadcast). In place (out = a). */
typedef struct oxi_binary_args {
  oxi_op op; /* OXI_OP_BINARY, 3 tensors, 1 output */
  oxi_tensor a;
  oxi_tensor b;
  oxi_tensor out;
  int32_t fn; /* oxi_binary_op */
  int32_t reserved;
} oxi_binary_args;

/* out = x * scale + bias; in place. */
typedef struct oxi_scale_args {
  oxi_op op; /* OXI_OP_SCALE, 2 tensors, 1 output */
  oxi_tensor x;
  oxi_tensor out;
  float scale;
  float bias;
} oxi_scale_args;

/* out = act(gate) * up (SwiGLU, GeGLU); in place (out = gate or up). */
typedef struct oxi_glu_args {
  oxi_op op; /* OXI_OP_GLU, 3 tensors, 1 output */
  oxi_tensor gate;
  oxi_tensor up;
  oxi_tensor out;
  int32_t act; /* oxi_unary_op */
  int32_t reserved;
} oxi_glu_args;

/* out = softmax(x * scale) over each row; in place. */
typedef struct oxi_softmax_args {
  oxi_op op; /* OXI_OP_SOFTMAX, 2 tensors, 1 output */
  oxi_tensor x;
  oxi_tensor out;
  float scale;
  int32_t reserved;
} oxi_softmax_args;

/* out = x / sqrt(mean(x^2) + eps) * (weight + weight_offset) per row; weight
 * absent: 1. weight_offset 1 is the zero-centred form (1 + w). In place. */
typedef struct oxi_rms_norm_args {
  oxi_op op; /* OXI_OP_RMS_NORM, 3 tensors, 1 output */
  oxi_tensor x;      /* [rows][dim] */
  oxi_tensor weight; /* optional [1][dim] f32 */
  oxi_tensor out;
  float eps;
  float weight_offset;
} oxi_rms_norm_args;

/* out = x / sqrt(sum(x^2) + eps) * scale per row (transformers' l2norm); in place. */
typedef struct oxi_l2_norm_args {
  oxi_op op; /* OXI_OP_L2_NORM, 2 tensors, 1 output */
  oxi_tensor x;
  oxi_tensor out;
  float eps;
  float scale;
} oxi_l2_norm_args;

/* out = (x - mean) / sqrt(var + eps) * gamma + beta per row (biased variance);
 * gamma / beta absent: 1 / 0. In place. */
typedef struct oxi_layer_norm_args {
  oxi_op op; /* OXI_OP_LAYER_NORM, 4 tensors, 1 output */
  oxi_tensor x;     /* [rows][dim] */
  oxi_tensor gamma; /* optional [1][dim] f32 */
  oxi_tensor beta;  /* optional [1][dim] f32 */
  oxi_tensor out;
  float eps;
  int32_t reserved;
} oxi_layer_norm_args;

/* Group norm of channels-last images, then act: x holds `batch` images of
 * rows / batch pixels each, channels in columns; the statistics of group g
 * (channels [g*C/groups, (g+1)*C/groups)) are taken over all pixels of one
 * image (biased variance). In place. */
typedef struct oxi_group_norm_args {
  oxi_op op; /* OXI_OP_GROUP_NORM, 4 tensors, 1 output */
  oxi_tensor x;     /* [batch * pixels][C] */
  oxi_tensor gamma; /* optional [1][C] f32 */
  oxi_tensor beta;  /* optional [1][C] f32 */
  oxi_tensor out;
  int32_t groups; /* divides C */
  int32_t batch;  /* divides rows; 0: 1 */
  float eps;
  int32_t act; /* oxi_unary_op: NONE or SILU */
} oxi_group_norm_args;

/* Rotary embedding, rotate-half pairing: in each head of x (columns
 * [h*head_dim, (h+1)*head_dim)), dims i and i + rot_dim/2 for i < rot_dim/2
 * rotate by angle pos[t] * inv_freq[i] (float32: (float)pos * inv_freq, then
 * cos / sin); dims >= rot_dim pass through. Full, partial and proportional
 * RoPE differ only in rot_dim and the inv_freq table. In place. */
typedef struct oxi_rope_args {
  oxi_op op; /* OXI_OP_ROPE, 4 tensors, 1 output */
  oxi_tensor x;        /* [n_tok][n_heads * head_dim] */
  oxi_tensor pos;      /* [1][n_tok] i32 */
  oxi_tensor inv_freq; /* [1][rot_dim / 2] f32 */
  oxi_tensor out;
  int32_t n_heads;
  int32_t head_dim;
  int32_t rot_dim;
  int32_t reserved;
} oxi_rope_args;

/* Attention of query rows against key / value rows (a KV cache).
 * q rows are `batch` equal parts of n_q queries, k / v rows `batch` parts of
 * n_kv slots; part b attends part b only (a batch of independent sequences of
 * equal length, e.g. conditional and unconditional). Positions, mask and spans
 * are shared by the parts. Query head h reads KV head h / (n_heads / n_kv_heads).
 * Slot i is visible to query t when kv_pos[i] >= 0 and either
 *   - q_span[t] != 0 and q_span[t] == kv_span[i] (a bidirectional span: the
 *     tokens of one image attend each other both ways), or
 *   - (!causal or kv_pos[i] <= q_pos[t]) and (window <= 0 or
 *     q_pos[t] - kv_pos[i] < window).
 * score = scale * q.k; if softcap > 0: softcap * tanh(score / softcap); then
 * + mask[t][i] when a mask is given (-inf hides). A query that sees no slot
 * gets zeros. Absent positions are 0, 1, 2, ... A ring buffer is a cache whose
 * kv_pos are not sorted; empty slots have kv_pos -1. */
typedef struct oxi_attention_args {
  oxi_op op; /* OXI_OP_ATTENTION, 9 tensors, 1 output */
  oxi_tensor q;       /* [batch * n_q][n_heads * head_dim] f32 */
  oxi_tensor k;       /* [batch * n_kv][n_kv_heads * head_dim] f32 (F16 where supported) */
  oxi_tensor v;       /* [batch * n_kv][n_kv_heads * v_head_dim] */
  oxi_tensor q_pos;   /* optional [1][n_q] i32 */
  oxi_tensor kv_pos;  /* optional [1][n_kv] i32 */
  oxi_tensor mask;    /* optional [n_q][n_kv] f32, added to the scores */
  oxi_tensor q_span;  /* optional [1][n_q] i32 */
  oxi_tensor kv_span; /* optional [1][n_kv] i32 */
  oxi_tensor out;     /* [batch * n_q][n_heads * v_head_dim] f32 */
  int32_t n_heads, n_kv_heads, head_dim, v_head_dim;
  float scale;
  float softcap;
  int32_t causal;
  int32_t window;
  int32_t batch; /* 0: 1 */
  int32_t reserved;
} oxi_attention_args;

/* Depthwise causal convolution over time (Qwen 3.5's DeltaNet conv), then act:
 * out[t][c] = act(sum_j w[c][j] * xp[t + j][c]) where xp is the state's K-1
 * rows followed by x's n rows; the state becomes the last K-1 rows of xp. */
typedef struct oxi_conv1d_causal_args {
  oxi_op op; /* OXI_OP_CONV1D_CAUSAL, 4 tensors, 2 outputs */
  oxi_tensor x;     /* [n][C] */
  oxi_tensor w;     /* [C][K] f32 */
  oxi_tensor state; /* [K-1][C] f32, read and written */
  oxi_tensor out;   /* [n][C] */
  int32_t act;      /* oxi_unary_op: NONE or SILU */
  int32_t reserved;
} oxi_conv1d_causal_args;

typedef enum oxi_gated_delta_mode {
  OXI_GATED_DELTA_AUTO = 0,      /* recurrent for one token, chunked for more */
  OXI_GATED_DELTA_RECURRENT = 1, /* token by token */
  OXI_GATED_DELTA_CHUNKED = 2,   /* chunk by chunk (the UT-transform form) */
} oxi_gated_delta_mode;

/* The gated delta rule (Gated DeltaNet), as transformers' qwen3_5
 * torch_recurrent_gated_delta_rule / torch_chunk_gated_delta_rule in float32,
 * q and k already L2-normalised (q also scaled by 1 / sqrt(k_dim)). Per token
 * t and value head h (reading q/k head h / (n_v_heads / n_k_heads)), with S the
 * head's state [k_dim][v_dim]:
 *   S *= exp(g[t][h]);  d = (v[t][h] - S^T k[t]) * beta[t][h];
 *   S += k[t] (outer) d;  out[t][h] = S^T q[t].
 * Both forms give the same result to rounding. */
typedef struct oxi_gated_delta_args {
  oxi_op op; /* OXI_OP_GATED_DELTA, 7 tensors, 2 outputs */
  oxi_tensor q;     /* [n][n_k_heads * k_dim] */
  oxi_tensor k;     /* [n][n_k_heads * k_dim] */
  oxi_tensor v;     /* [n][n_v_heads * v_dim] */
  oxi_tensor g;     /* [n][n_v_heads] log decay (<= 0) */
  oxi_tensor beta;  /* [n][n_v_heads] */
  oxi_tensor state; /* [n_v_heads][k_dim * v_dim] f32, read and written */
  oxi_tensor out;   /* [n][n_v_heads * v_dim] */
  int32_t n_k_heads, n_v_heads, k_dim, v_dim;
  int32_t mode;       /* oxi_gated_delta_mode */
  int32_t chunk_size; /* chunked form; 0: 64 */
} oxi_gated_delta_args;

/* 2-D convolution of channels-last images with zero padding, as an implicit
 * GEMM: x holds `batch` images of height x width pixels (rows) by cin
 * channels; w row o holds output channel o's kernel in (ky, kx, ci) order;
 * out holds batch images of ho x wo pixels, ho = (height + 2 pad - kh) /
 * stride + 1 (wo likewise), by cout channels. */
typedef struct oxi_conv2d_args {
  oxi_op op; /* OXI_OP_CONV2D, 4 tensors, 1 output */
  oxi_tensor x;    /* [batch * height * width][cin] f32 */
  oxi_tensor w;    /* [cout][kh * kw * cin] F32, F16 or BF16 */
  oxi_tensor bias; /* optional [1][cout] f32 */
  oxi_tensor out;  /* [batch * ho * wo][cout] f32 */
  int32_t batch, height, width; /* batch 0: 1 */
  int32_t kh, kw, stride, pad;
  int32_t reserved;
} oxi_conv2d_args;

/* Nearest-neighbour upsampling of channels-last images by an integer factor:
 * out pixel (y, x) = x pixel (y / factor, x / factor). */
typedef struct oxi_upsample_nearest_args {
  oxi_op op; /* OXI_OP_UPSAMPLE_NEAREST, 2 tensors, 1 output */
  oxi_tensor x;   /* [batch * height * width][c] */
  oxi_tensor out; /* [batch * height*factor * width*factor][c] */
  int32_t batch, height, width, factor; /* batch 0: 1 */
} oxi_upsample_nearest_args;

/* out = min(max(x, lo), hi) element-wise (torch.clamp; NaN stays NaN); in
 * place. Gemma 4's clipped linears. (ABI 2.1) */
typedef struct oxi_clamp_args {
  oxi_op op; /* OXI_OP_CLAMP, 2 tensors, 1 output */
  oxi_tensor x;
  oxi_tensor out;
  float lo, hi; /* -inf / +inf: no bound */
} oxi_clamp_args;

/* Average pooling of channels-last images over non-overlapping factor x
 * factor windows (height and width multiples of factor): out pixel (y, x) =
 * the mean of x pixels (y*factor + i, x*factor + j), summed in row-major
 * order then multiplied by 1 / factor^2. Gemma 4's vision pooler. (ABI 2.1) */
typedef struct oxi_avg_pool2d_args {
  oxi_op op; /* OXI_OP_AVG_POOL2D, 2 tensors, 1 output */
  oxi_tensor x;   /* [batch * height * width][c] f32 */
  oxi_tensor out; /* [batch * height/factor * width/factor][c] f32 */
  int32_t batch, height, width, factor; /* batch 0: 1 */
} oxi_avg_pool2d_args;

/* Banded self-attention with relative-position logits ahead of a softcap:
 * the chunked local attention of the USM / Gemma 4 audio conformer, whose
 * blocks of chunk_size queries with their past and future context equal one
 * band. Query t of head h sees key s when 0 <= t - s < left or 0 < s - t <
 * right; its score is
 *   z = scale * (q[t].k[s] + (0 <= c < rel.rows ? q[t].rel[c] : 0)),
 *   c = rel_offset + s - t,
 * then softcap * tanh(z / softcap) where softcap > 0; softmax over the visible
 * keys; out[t] = sum of weights * v[s]. A query that sees no key gets zeros.
 * All heads have head_dim columns, q, k, v, rel and out alike. (ABI 2.1) */
typedef struct oxi_local_attention_args {
  oxi_op op; /* OXI_OP_LOCAL_ATTENTION, 5 tensors, 1 output */
  oxi_tensor q;   /* [n][n_heads * head_dim] f32 */
  oxi_tensor k;   /* [n][n_heads * head_dim] f32 */
  oxi_tensor v;   /* [n][n_heads * head_dim] f32 */
  oxi_tensor rel; /* optional [n_rel][n_heads * head_dim] f32 */
  oxi_tensor out; /* [n][n_heads * head_dim] f32 */
  int32_t n_heads, head_dim;
  int32_t left, right; /* >= 0 */
  int32_t rel_offset;
  float scale;
  float softcap;
  int32_t reserved;
} oxi_local_attention_args;

/* The name of an op kind ("matmul"); "unknown" for others. */
static inline const char* oxi_op_name(int kind) {
  switch (kind) {
    case OXI_OP_MATMUL: return "matmul";
    case OXI_OP_CONVERT: return "convert";
    case OXI_OP_GET_ROWS: return "get_rows";
    case OXI_OP_SET_ROWS: return "set_rows";
    case OXI_OP_COPY: return "copy";
    case OXI_OP_FILL: return "fill";
    case OXI_OP_CONCAT: return "concat";
    case OXI_OP_UNARY: return "unary";
    case OXI_OP_BINARY: return "binary";
    case OXI_OP_SCALE: return "scale";
    case OXI_OP_GLU: return "glu";
    case OXI_OP_SOFTMAX: return "softmax";
    case OXI_OP_RMS_NORM: return "rms_norm";
    case OXI_OP_L2_NORM: return "l2_norm";
    case OXI_OP_LAYER_NORM: return "layer_norm";
    case OXI_OP_GROUP_NORM: return "group_norm";
    case OXI_OP_ROPE: return "rope";
    case OXI_OP_ATTENTION: return "attention";
    case OXI_OP_CONV1D_CAUSAL: return "conv1d_causal";
    case OXI_OP_GATED_DELTA: return "gated_delta";
    case OXI_OP_CONV2D: return "conv2d";
    case OXI_OP_UPSAMPLE_NEAREST: return "upsample_nearest";
    case OXI_OP_CLAMP: return "clamp";
    case OXI_OP_AVG_POOL2D: return "avg_pool2d";
    case OXI_OP_LOCAL_ATTENTION: return "local_attention";
    default: return "unknown";
  }
}


/* Fills an op's header for `kind` (operand counts as the structs above
 * declare them) after zeroing the whole struct of `size` bytes. Returns 0 for
 * an unknown kind. */
static inline int oxi_op_init(oxi_op* op, size_t size, int kind) {
  int n = 0, outs = 1;
  uint32_t read = 0;
  switch (kind) {
    case OXI_OP_MATMUL: n = 4; break;
    case OXI_OP_CONVERT: n = 2; break;
    case OXI_OP_GET_ROWS: n = 3; break;
    case OXI_OP_SET_ROWS: n = 3; read = 1; break;
    case OXI_OP_COPY: n = 2; break;
    case OXI_OP_FILL: n = 1; break;
    case OXI_OP_CONCAT: n = 3; break;
    case OXI_OP_UNARY: n = 2; break;
    case OXI_OP_BINARY: n = 3; break;
    case OXI_OP_SCALE: n = 2; break;
    case OXI_OP_GLU: n = 3; break;
    case OXI_OP_SOFTMAX: n = 2; break;
    case OXI_OP_RMS_NORM: n = 3; break;
    case OXI_OP_L2_NORM: n = 2; break;
    case OXI_OP_LAYER_NORM: n = 4; break;
    case OXI_OP_GROUP_NORM: n = 4; break;
    case OXI_OP_ROPE: n = 4; break;
    case OXI_OP_ATTENTION: n = 9; break;
    case OXI_OP_CONV1D_CAUSAL: n = 4; outs = 2; read = 1; break;
    case OXI_OP_GATED_DELTA: n = 7; outs = 2; read = 1; break;
    case OXI_OP_CONV2D: n = 4; break;
    case OXI_OP_UPSAMPLE_NEAREST: n = 2; break;
    case OXI_OP_CLAMP: n = 2; break;
    case OXI_OP_AVG_POOL2D: n = 2; break;
    case OXI_OP_LOCAL_ATTENTION: n = 5; break;
    default: return 0;
  }
  memset(op, 0, size);
  op->struct_size = (uint32_t)size;
  op->kind = (uint16_t)kind;
  op->n_tensors = (uint8_t)n;
  op->n_outputs = (uint8_t)outs;
  op->outputs_read = read;
  return 1;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* OXINFER_OPS_H_ */
