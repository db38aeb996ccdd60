/* oxinfer plugin ABI, a plain C interface.
 *
 * Every plugin is a shared object that exports exactly one symbol,
 * `oxinfer_plugin_entry` (OXI_ENTRY_SYMBOL), returning a static oxi_plugin.
 * Rules that keep old and new hosts and plugins working together:
 *   - Every struct starts with `struct_size`; fields are only ever appended.
 *     A reader checks struct_size before touching a field past the first
 *     version's end (OXI_HAS_FIELD).
 *   - oxi_plugin's first three fields (struct_size, abi_major, abi_minor) never
 *     move. A host refuses a plugin whose abi_major differs from its own and
 *     says both numbers; a larger abi_minor on either side is compatible.
 *   - Optional function pointers may be NULL; the host copes (for a backend,
 *     the dispatcher falls back to the CPU reference).
 *   - No C++ types, exceptions or ownership cross: memory passed in is
 *     borrowed for the call; memory a plugin allocates it frees itself.
 *   - The entry function and score() must not execute instructions the CPU
 *     may lack: ISA-specific code runs only after score() returned > 0.
 * Status codes are absl::StatusCode's numbers, so hosts map them 1:1.
 */
#ifndef OXINFER_PLUGIN_ABI_H_
#define OXINFER_PLUGIN_ABI_H_

#include <stddef.h>
#include <stdint.h>

#include "oxinfer/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

#define OXI_ABI_MAJOR 1
#define OXI_ABI_MINOR 1
#define OXI_ENTRY_SYMBOL "oxinfer_plugin_entry"

#if defined(_WIN32)
#define OXI_EXPORT __declspec(dllexport)
#else
#define OXI_EXPORT __attribute__((visibility("default")))
#endif

/* True when a struct received from the other side is large enough to hold `field`. */
#define OXI_HAS_FIELD(ptr, type, field) \
  ((ptr)->struct_size >= offsetof(type, field) + sizeof(((type*)0)->field))

typedef enum oxi_status {
  OXI_OK = 0,
  OXI_CANCELLED = 1,
  OXI_UNKNOWN = 2,
  OXI_INVALID_ARGUMENT = 3,
  OXI_NOT_FOUND = 5,
  OXI_RESOURCE_EXHAUSTED = 8,
  OXI_FAILED_PRECONDITION = 9,
  OXI_OUT_OF_RANGE = 11,
  OXI_UNIMPLEMENTED = 12,
  OXI_INTERNAL = 13,
  OXI_UNAVAILABLE = 14,
  OXI_DATA_LOSS = 15,
} oxi_status;

typedef enum oxi_plugin_kind {
  OXI_PLUGIN_BACKEND = 1,
  OXI_PLUGIN_MODEL = 2,
  OXI_PLUGIN_CODEC = 3,
} oxi_plugin_kind;

/* CPU feature bits reported by the host (detected with cpuid/xgetbv or the
 * OS's hwcaps, including OS support for the wide registers). */
#define OXI_CPU_SSE42 (1ull << 0)
#define OXI_CPU_AVX (1ull << 1)
#define OXI_CPU_AVX2 (1ull << 2)
#define OXI_CPU_FMA (1ull << 3)
#define OXI_CPU_F16C (1ull << 4)
#define OXI_CPU_BMI2 (1ull << 5)
#define OXI_CPU_AVX512F (1ull << 6)
#define OXI_CPU_AVX512BW (1ull << 7)
#define OXI_CPU_AVX512DQ (1ull << 8)
#define OXI_CPU_AVX512VL (1ull << 9)
#define OXI_CPU_AVX512VNNI (1ull << 10)
#define OXI_CPU_AVX512BF16 (1ull << 11)
#define OXI_CPU_AVXVNNI (1ull << 12)
#define OXI_CPU_NEON (1ull << 32)
#define OXI_CPU_DOTPROD (1ull << 33)
#define OXI_CPU_FP16 (1ull << 34)
#define OXI_CPU_I8MM (1ull << 35)
#define OXI_CPU_SVE (1ull << 36)

/* x86-64 micro-architecture levels as feature sets. */
#define OXI_CPU_X86_64_V3 \
  (OXI_CPU_AVX | OXI_CPU_AVX2 | OXI_CPU_FMA | OXI_CPU_F16C | OXI_CPU_BMI2)
#define OXI_CPU_X86_64_V4 \
  (OXI_CPU_X86_64_V3 | OXI_CPU_AVX512F | OXI_CPU_AVX512BW | OXI_CPU_AVX512DQ | OXI_CPU_AVX512VL)

enum { OXI_LOG_DEBUG = 0, OXI_LOG_INFO = 1, OXI_LOG_WARNING = 2, OXI_LOG_ERROR = 3 };

/* Work over [begin, end), run on pool thread `thread_index`. */
typedef void (*oxi_range_fn)(void* ctx, int64_t begin, int64_t end, int32_t thread_index);

/* What the host offers every plugin. Plugins never link the core: one copy of
 * its state (thread pool, logging) per process. */
typedef struct oxi_host_services {
  uint32_t struct_size;
  uint32_t abi_major;
  uint32_t abi_minor;
  const char* host_version;
  void (*log)(int32_t level, const char* plugin_name, const char* message);
  /* Splits [0, n) into contiguous ranges of at least `grain` items, at most
   * one per pool thread, runs them in parallel and returns when all are done.
   * Costs about a microsecond; safe to call hundreds of times per token.
   * Nested calls run inline on the calling thread. */
  void (*parallel_for)(int64_t n, int64_t grain, oxi_range_fn fn, void* ctx);
  int32_t (*num_threads)(void);
  uint64_t (*cpu_features)(void);
  /* 64-byte aligned memory owned by the caller until aligned_free. */
  void* (*aligned_alloc)(size_t size);
  void (*aligned_free)(void* ptr);
} oxi_host_services;

/* ======================= backend plugins ======================= */

typedef enum oxi_unary_op {
  OXI_UNARY_GELU_TANH = 1, /* 0.5x(1+tanh(sqrt(2/pi)(x+0.044715x^3))) */
  OXI_UNARY_SILU = 2,      /* x*sigmoid(x) */
  OXI_UNARY_SIGMOID = 3,
  OXI_UNARY_SOFTPLUS = 4, /* log(1+exp(x)), = x above 20 as in torch */
  OXI_UNARY_EXP = 5,
  OXI_UNARY_TANH = 6,
  OXI_UNARY_GELU_ERF = 7, /* 0.5x(1+erf(x/sqrt 2)) */
} oxi_unary_op;

typedef enum oxi_binary_op {
  OXI_BINARY_ADD = 1,
  OXI_BINARY_SUB = 2,
  OXI_BINARY_MUL = 3,
  OXI_BINARY_DIV = 4,
} oxi_binary_op;

/* Attention of a block of query tokens against a KV cache.
 * q:   [n_q][n_heads][head_dim]           (f32)
 * k:   [n_kv][n_kv_heads][head_dim]       (f32), row i holds position kv_pos[i]
 * v:   [n_kv][n_kv_heads][v_head_dim]     (f32)
 * out: [n_q][n_heads][v_head_dim]
 * Query head h reads KV head h / (n_heads / n_kv_heads) (grouped-query).
 * Slot i is visible to query t when kv_pos[i] >= 0 and, if causal,
 * kv_pos[i] <= q_pos[t], and, if window > 0, q_pos[t] - kv_pos[i] < window.
 * A ring buffer is just a cache whose kv_pos are not sorted.
 * score = scale * q.k; if softcap > 0: score = softcap * tanh(score / softcap).
 * A query that sees no slot gets zeros. */
typedef struct oxi_attention_params {
  uint32_t struct_size;
  int64_t n_q, n_kv;
  int32_t n_heads, n_kv_heads, head_dim, v_head_dim;
  const float* q;
  const float* k;
  const float* v;
  const int32_t* q_pos;
  const int32_t* kv_pos;
  float* out;
  float scale;
  float softcap;
  int32_t causal;
  int32_t window;
  /* Row strides in floats for k and v (0: packed, n_kv_heads*head_dim). Lets a
   * k=v cache pass the same buffer twice, or a cache live inside a wider row. */
  int64_t k_row_stride, v_row_stride;
} oxi_attention_params;

/* A compute backend. Every op is optional (NULL: the host uses the CPU
 * reference). Ops return OXI_OK or an error code; they never abort. Arrays are
 * dense and row-major unless said otherwise; `self` is get_interface's ctx. */
typedef struct oxi_backend_iface {
  uint32_t struct_size;
  void* self;
  const char* device_name; /* "cpu", "cuda:0", ... */

  /* y[m][n] = sum_k x[m][k] * W[n][k]: f32 activations times a weight matrix
   * [n][k] (HF Linear layout) stored as w_dtype (rows of oxi_dtype_row_bytes). */
  int32_t (*matmul)(void* self, const float* x, int64_t m, int64_t k, const void* w,
                    oxi_dtype w_dtype, int64_t n, float* y);
  /* Converts `rows` rows of k elements from src_dtype to dst_dtype (any of the
   * float types to any type, quantised types to floats). Q8_0/Q4_0 scales are
   * absmax/127 and absmax/-8 with the sign of the max-magnitude element, as GGUF. */
  int32_t (*convert)(void* self, const void* src, oxi_dtype src_dtype, void* dst,
                     oxi_dtype dst_dtype, int64_t rows, int64_t k);
  /* out[i] = row ids[i] of table [n_rows][k] (dtype), as f32 (embedding lookup). */
  int32_t (*get_rows)(void* self, const void* table, oxi_dtype dtype, int64_t n_rows, int64_t k,
                      const int32_t* ids, int64_t n_ids, float* out);
  /* out = x / rms(x) * (weight + weight_offset) per row; weight may be NULL
   * (then 1). weight_offset 1 gives the zero-centred form (1 + w). */
  int32_t (*rms_norm)(void* self, const float* x, const float* weight, float weight_offset,
                      int64_t rows, int64_t dim, float eps, float* out);
  /* In-place rotary embedding on x [n_tok][n_heads][head_dim], rotate-half
   * pairing (i, i + rot_dim/2) over the first rot_dim dims; the rest pass
   * through. angle = pos[t] * inv_freq[i], i < rot_dim/2. Full, partial and
   * proportional RoPE differ only in rot_dim and the inv_freq table. */
  int32_t (*rope)(void* self, float* x, int64_t n_tok, int32_t n_heads, int32_t head_dim,
                  int32_t rot_dim, const int32_t* pos, const float* inv_freq);
  /* In-place softmax over each row of cols, after multiplying by scale. */
  int32_t (*softmax)(void* self, float* x, int64_t rows, int64_t cols, float scale);
  int32_t (*unary)(void* self, oxi_unary_op op, const float* x, int64_t n, float* out);
  /* out[i] = a[i] op b[i % nb]: nb == n is element-wise, nb < n broadcasts b
   * along rows (n a multiple of nb). */
  int32_t (*binary)(void* self, oxi_binary_op op, const float* a, const float* b, int64_t n,
                    int64_t nb, float* out);
  /* out[i] = x[i] * s + b */
  int32_t (*scale)(void* self, const float* x, int64_t n, float s, float b, float* out);
  int32_t (*attention)(void* self, const oxi_attention_params* params);
  /* ABI 1.1. The storage this backend's matmul reads fastest for a weight
   * [n][k] that a model wants held as `dtype`: dtype itself, or a layout of
   * the same values (Q4_0 -> Q4_0x8, see dtype.h) that convert() produces.
   * Optional (NULL: as asked). Models call it once per weight, at load. */
  oxi_dtype (*matmul_weight_dtype)(void* self, oxi_dtype dtype, int64_t n, int64_t k);
} oxi_backend_iface;

/* An 8-bit image; who allocated `pixels` says who frees it. */
typedef struct oxi_image {
  uint32_t struct_size;
  int32_t width, height, channels; /* channels: 1, 3 or 4; 8 bits each */
  uint8_t* pixels;                 /* height rows of width*channels bytes */
} oxi_image;

/* ======================= model plugins ======================= */

typedef struct oxi_model oxi_model; /* opaque, owned by the plugin */

typedef struct oxi_model_open_params {
  uint32_t struct_size;
  const char* model_dir;
  const oxi_backend_iface* backend;
  oxi_dtype weight_dtype; /* OXI_DTYPE_INVALID: as stored; Q8_0 / Q4_0: quantise at load */
  int32_t use_mmap;
  int32_t context_length; /* 0: model default */
  int32_t prefill_chunk;  /* 0: plugin default */
  /* Optional: loading progress, `done` of `total` units (bytes, tensors...)
   * of the stage named `what`; may be called often. */
  void (*progress)(void* ctx, double done, double total, const char* what);
  void* progress_ctx;
} oxi_model_open_params;

/* A text-to-image request (diffusion model plugins). */
typedef struct oxi_image_request {
  uint32_t struct_size;
  const char* prompt;
  const char* negative_prompt; /* NULL or "": empty */
  int32_t steps;               /* 0: the model's default (SD-Turbo 1, others 25) */
  float guidance;              /* < 0: the model's default (SD-Turbo 0, others 7.5) */
  const char* sampler;         /* NULL: default; "euler" or "euler_a" */
  int32_t width, height;       /* 0: the model's native size */
  uint64_t seed;
  /* Optional: called after each denoising step. */
  void (*progress)(void* ctx, int32_t step, int32_t total);
  void* progress_ctx;
} oxi_image_request;

typedef struct oxi_model_iface {
  uint32_t struct_size;
  /* How well this plugin handles the checkpoint whose config.json text is
   * given: 0 with a reason when it is not one of its models. */
  int32_t (*probe)(const char* model_dir, const char* config_json, char* reason,
                   size_t reason_size);
  int32_t (*open)(const oxi_model_open_params* params, oxi_model** model, char* error,
                  size_t error_size);
  void (*close)(oxi_model* model);
  int32_t (*vocab_size)(const oxi_model* model);
  /* Appends n tokens at the end of the sequence; writes the last token's
   * logits [vocab_size] when logits != NULL. */
  int32_t (*forward)(oxi_model* model, const int32_t* tokens, int64_t n, float* logits,
                     char* error, size_t error_size);
  /* Drops the sequence after its first n_keep tokens. A model whose state
   * cannot be rewound (recurrent layers) may accept only 0 and the current
   * length, and return OXI_UNIMPLEMENTED otherwise: the host then restarts. */
  int32_t (*truncate)(oxi_model* model, int64_t n_keep);
  /* Text to image (NULL for language models). RGB pixels allocated by the
   * plugin; release them with free_image. */
  int32_t (*generate_image)(oxi_model* model, const oxi_image_request* request, oxi_image* out,
                            char* error, size_t error_size);
  void (*free_image)(oxi_image* image);
} oxi_model_iface;

/* ======================= codec plugins ======================= */

typedef struct oxi_codec_iface {
  uint32_t struct_size;
  const char* formats; /* comma-separated: "png" */
  /* How well this codec reads a file starting with these bytes; 0: not at all. */
  int32_t (*sniff)(const uint8_t* head, size_t n);
  /* Decodes into pixels the plugin allocates; free with free_image. */
  int32_t (*decode_image)(const uint8_t* data, size_t n, oxi_image* out, char* error,
                          size_t error_size);
  void (*free_image)(oxi_image* image);
  /* Encodes; *out is allocated by the plugin, release with free_buffer. */
  int32_t (*encode_image)(const oxi_image* image, const char* format, uint8_t** out,
                          size_t* out_size, char* error, size_t error_size);
  void (*free_buffer)(uint8_t* buffer);
} oxi_codec_iface;

/* ======================= the plugin descriptor ======================= */

typedef struct oxi_plugin {
  uint32_t struct_size;
  uint32_t abi_major; /* OXI_ABI_MAJOR the plugin was built against */
  uint32_t abi_minor;
  int32_t kind; /* oxi_plugin_kind */
  const char* name;
  const char* version;
  const char* description;
  /* 0: cannot run here, reason written; > 0: preference among plugins of the
   * same kind (a better ISA scores higher). Portable code only. */
  int32_t (*score)(const oxi_host_services* host, char* reason, size_t reason_size);
  /* The kind's interface (oxi_backend_iface*, oxi_model_iface*,
   * oxi_codec_iface*); called once, after score() > 0. NULL with a reason on failure. */
  const void* (*get_interface)(const oxi_host_services* host, char* error, size_t error_size);
} oxi_plugin;

typedef const oxi_plugin* (*oxi_plugin_entry_fn)(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* OXINFER_PLUGIN_ABI_H_ */
