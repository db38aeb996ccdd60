/* oxinfer plugin ABI 2: what every plugin kind shares. Plain C.
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
 *   - Optional function pointers may be NULL; the host copes.
 *   - No C++ types, exceptions or ownership cross: memory passed in is
 *     borrowed for the call; memory a side allocates, that side frees (each
 *     allocation says which function releases it).
 *   - The entry function and score() must not execute instructions the CPU
 *     may lack: ISA-specific code runs only after score() returned > 0.
 *   - Every failure returns an oxi_status and, where the call has an error
 *     buffer, a NUL-terminated message in it naming what failed.
 * Status codes are absl::StatusCode's numbers, so hosts map them 1:1.
 */
#ifndef OXINFER_ABI_COMMON_H_
#define OXINFER_ABI_COMMON_H_

#include <stddef.h>
#include <stdint.h>

#include "oxinfer/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

#define OXI_ABI_MAJOR 2
/* Minor versions (appended fields and entries only, read after OXI_HAS_FIELD):
 *   2.1: backend: oxi_backend_iface.device_count / device_info_at / select_device
 *        (backends that see several devices: vulkan:1), .prefill_chunk;
 *        codecs: oxi_codec_iface.media, decode_image_rgb, decode_audio, free_audio
 *        (oxi_audio, oxi_decode_limits in codec_abi.h);
 *        ops: OXI_OP_CLAMP, OXI_OP_AVG_POOL2D (Gemma 4 media), OXI_OP_LOCAL_ATTENTION
 *        (Gemma 4 audio);
 *        model: oxi_model_iface.encode_media / free_media, OXI_MODEL_MEDIA_INPUT.
 *   2.2: model: oxi_model_iface.draft (oxi_draft_args), OXI_MODEL_DRAFT,
 *        oxi_model_open_params.draft (speculative decoding with the
 *        checkpoint's own multi-token-prediction head).
 *   2.3: model: oxi_model_open_params.draft_dir (a separate drafter checkpoint:
 *        Gemma 4's assistant), .record_weight / .record_ctx (the weights as
 *        loaded, for --save-quantized). */
#define OXI_ABI_MINOR 3
#define OXI_ENTRY_SYMBOL "oxinfer_plugin_entry"

/* ABI 2.1: kinds of media, as bits (oxi_codec_iface.media: what a codec
 * decodes) and as values (oxi_media_input.kind: what a model encodes). */
#define OXI_MEDIA_IMAGE 1u
#define OXI_MEDIA_AUDIO 2u

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
  OXI_ALREADY_EXISTS = 6,
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

/* ---- host services: files, JSON and safetensors, parsed once, in the host ----
 * Plugins never carry their own parsers for these formats: the host's are
 * bounded (sizes, nesting), refuse what is not a regular file, and are
 * fuzzed. The SDK wraps them (oxinfer/sdk/json.hpp, weights.hpp). */

/* Bytes the host allocated; release with host->free_blob. */
typedef struct oxi_blob {
  uint32_t struct_size;
  char* data; /* NUL-terminated (one byte past size) */
  uint64_t size;
} oxi_blob;

typedef enum oxi_json_type {
  OXI_JSON_NULL = 0,
  OXI_JSON_BOOL = 1,
  OXI_JSON_INT = 2,   /* fits int64 */
  OXI_JSON_FLOAT = 3, /* any other number */
  OXI_JSON_STRING = 4,
  OXI_JSON_ARRAY = 5,
  OXI_JSON_OBJECT = 6,
} oxi_json_type;

/* One value of a parsed document. Children of an array or object are linked
 * from first_child through next_sibling (indices into oxi_json.nodes; -1 ends),
 * in document order; an object's children carry their keys. */
typedef struct oxi_json_node {
  int32_t type;      /* oxi_json_type */
  int32_t reserved;
  int64_t integer;   /* BOOL: 0 / 1; INT: the value */
  double number;     /* INT and FLOAT: the value */
  const char* string; /* STRING: UTF-8, NUL-terminated */
  uint64_t string_size;
  const char* key;   /* a member of an object: its key (NUL-terminated); else NULL */
  uint64_t key_size;
  int64_t n_children;
  int64_t first_child;
  int64_t next_sibling;
} oxi_json_node;

typedef struct oxi_json {
  uint32_t struct_size;
  int64_t n_nodes;
  const oxi_json_node* nodes; /* nodes[0] is the root */
} oxi_json;

/* A tensor of an opened checkpoint. `data` points into the host's mapping or
 * copy of the file, valid until weights_close; as aligned as the file makes
 * it (do not assume more than the element size). */
typedef struct oxi_weight_tensor {
  const char* name;
  int32_t dtype; /* oxi_dtype */
  int32_t ndim;
  int64_t shape[8];
  const void* data;
  uint64_t size; /* bytes */
} oxi_weight_tensor;

/* A checkpoint's tensors: one .safetensors file, or a folder with
 * model.safetensors / model.safetensors.index.json (or the diffusers names),
 * every header checked before anything is handed out. */
typedef struct oxi_weights {
  uint32_t struct_size;
  const char* source; /* the file or index that was opened */
  int64_t n_tensors;
  const oxi_weight_tensor* tensors; /* sorted by name (strcmp) */
} oxi_weights;

#define OXI_WEIGHTS_MMAP 1u /* map the files instead of reading them into memory */

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

  /* A whole regular file of at most max_bytes (FIFOs, devices and larger
   * files are refused with a message naming the path). */
  int32_t (*read_file)(const char* path, uint64_t max_bytes, oxi_blob* out, char* error,
                       size_t error_size);
  void (*free_blob)(oxi_blob* blob);
  /* Strict JSON (duplicate keys, nesting deeper than 512, invalid UTF-8
   * refused); `source` names the text in messages. Release with json_free. */
  int32_t (*json_parse)(const char* text, uint64_t size, const char* source,
                        const oxi_json** out, char* error, size_t error_size);
  void (*json_free)(const oxi_json* doc);
  /* Opens a checkpoint's safetensors (flags: OXI_WEIGHTS_MMAP). */
  int32_t (*weights_open)(const char* path, uint32_t flags, const oxi_weights** out, char* error,
                          size_t error_size);
  /* Hands tensor `index`'s mapped pages back to the OS once the plugin holds
   * its own copy; `data` stays valid (pages are read again if touched). */
  void (*weights_release)(const oxi_weights* weights, int64_t index);
  void (*weights_close)(const oxi_weights* weights);
} oxi_host_services;

/* An 8-bit image; who allocated `pixels` says who frees it. */
typedef struct oxi_image {
  uint32_t struct_size;
  int32_t width, height, channels; /* channels: 1, 3 or 4; 8 bits each */
  uint8_t* pixels;                 /* height rows of width*channels bytes */
} oxi_image;

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
   * oxi_codec_iface*); called once, after score() > 0; valid until the
   * process ends. NULL with a reason on failure. */
  const void* (*get_interface)(const oxi_host_services* host, char* error, size_t error_size);
} oxi_plugin;

typedef const oxi_plugin* (*oxi_plugin_entry_fn)(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* OXINFER_ABI_COMMON_H_ */
