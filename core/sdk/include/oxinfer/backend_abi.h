/* oxinfer plugin ABI 2: compute backends.
 *
 * A backend owns device memory (buffers) and executes operations (ops.h) on
 * tensors in that memory. Model plugins never see a device pointer: they
 * allocate buffers, upload weights once, and name buffers in operations; the
 * data stays where it is computed.
 *
 * The host composes what model plugins receive (one oxi_backend_iface): an
 * accelerator for the operations it supports, the CPU reference for the rest,
 * with explicit copies in between (docs/architecture.md). Model plugins only
 * ever talk to that composed table and cannot tell which device ran what.
 *
 * Ordering and synchronisation: buffer_write, buffer_copy and execute are
 * applied in the order they are called. A backend may run them
 * asynchronously; buffer_read returns only when the data is there (it waits
 * for the work before it), and synchronize waits for everything. Host memory
 * passed to buffer_write may be reused as soon as it returns.
 *
 * Threading: one table serves one thread at a time (the host serialises
 * calls into a backend); buffers of one backend may not be used with another.
 */
#ifndef OXINFER_BACKEND_ABI_H_
#define OXINFER_BACKEND_ABI_H_

#include "oxinfer/abi_common.h"
#include "oxinfer/ops.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum oxi_device_kind {
  OXI_DEVICE_CPU = 1,
  OXI_DEVICE_GPU = 2,   /* discrete or integrated GPU (CUDA, Vulkan, Metal, WebGPU) */
  OXI_DEVICE_ACCEL = 3, /* any other accelerator (NPU, ...), and test backends */
} oxi_device_kind;

/* oxi_backend_iface.flags */
#define OXI_BACKEND_COMPLETE 1u    /* executes every op of this ABI version: a CPU reference */
#define OXI_BACKEND_HOST_MEMORY 2u /* buffers are host memory (buffer_host_ptr never NULL) */

/* buffer_alloc / buffer_wrap flags */
#define OXI_BUFFER_ZERO 1u    /* zero-filled (otherwise the contents are undefined) */
#define OXI_BUFFER_WEIGHTS 2u /* written once at load, then only read (a hint for placement) */

typedef struct oxi_device_info {
  uint32_t struct_size;
  const char* name;   /* "AMD EPYC 7B13", "llvmpipe (LLVM 15.0.6, 256 bits)" */
  int32_t kind;       /* oxi_device_kind */
  int32_t compute_units;
  uint64_t memory_total; /* bytes; 0: unknown */
  uint64_t memory_free;
  int32_t subgroup_size; /* 0: not applicable */
  int32_t reserved;
  const char* driver;    /* "Mesa 22.3.6", "CUDA 13.0"; may be NULL */
} oxi_device_info;

/* A compute backend. `self` is passed back to every function. Functions
 * return OXI_OK or an error with a message in error[0..error_size); they
 * never abort. */
typedef struct oxi_backend_iface {
  uint32_t struct_size;
  void* self;
  const char* device_name; /* short and unique among backends: "cpu", "vulkan0", "cuda0" */
  int32_t device_kind;     /* oxi_device_kind */
  uint32_t flags;          /* OXI_BACKEND_* */

  /* ---- memory ---- */
  /* A buffer of `size` bytes (flags: OXI_BUFFER_*), aligned to at least 64 bytes. */
  int32_t (*buffer_alloc)(void* self, uint64_t size, uint32_t flags, oxi_buffer** out,
                          char* error, size_t error_size);
  /* Optional. Uses `size` bytes of host memory at `host` as a buffer without
   * copying (a mapped checkpoint); the caller keeps the memory alive and
   * unchanged until buffer_free. OXI_UNIMPLEMENTED (or NULL): the host
   * allocates and writes instead. */
  int32_t (*buffer_wrap)(void* self, const void* host, uint64_t size, uint32_t flags,
                         oxi_buffer** out, char* error, size_t error_size);
  void (*buffer_free)(void* self, oxi_buffer* buffer);
  /* Optional: the buffer's bytes as host memory, or NULL when it is not
   * host-visible. Reading or writing them is ordered like buffer_read/write
   * only after synchronize. */
  void* (*buffer_host_ptr)(void* self, oxi_buffer* buffer);
  int32_t (*buffer_write)(void* self, oxi_buffer* dst, uint64_t offset, const void* src,
                          uint64_t size, char* error, size_t error_size);
  int32_t (*buffer_read)(void* self, oxi_buffer* src, uint64_t offset, void* dst, uint64_t size,
                         char* error, size_t error_size);
  int32_t (*buffer_copy)(void* self, oxi_buffer* dst, uint64_t dst_offset, oxi_buffer* src,
                         uint64_t src_offset, uint64_t size, char* error, size_t error_size);

  /* ---- compute ---- */
  /* Whether execute would run this op with these dtypes and shapes: 1 yes,
   * 0 no. Optional for a COMPLETE backend (then: yes). Cheap and pure: the
   * host asks it per call. It decides on the op's kind, dtypes, shapes,
   * strides, scalars and which operands are the same buffer, never on the
   * buffers' contents: the host asks before the data is on this backend, with
   * operand buffers that are its own handles, which must not be dereferenced. */
  int32_t (*supports)(void* self, const oxi_op* op);
  /* Runs n_ops operations in order (one, or a recorded sequence that a GPU
   * backend may submit at once). Stops at the first failure, whose message
   * names the op. */
  int32_t (*execute)(void* self, const oxi_op* const* ops, int64_t n_ops, char* error,
                     size_t error_size);
  /* Optional (NULL: the backend is synchronous). Waits for all work queued. */
  int32_t (*synchronize)(void* self, char* error, size_t error_size);

  /* ---- queries ---- */
  /* Optional. The storage this backend's matmul reads fastest for a weight
   * [rows][cols] that a model wants held as `dtype`: dtype itself, or a layout
   * of the same values (Q4_0 -> Q4_0_X8, see dtype.h) that CONVERT produces.
   * Models ask once per weight, at load. */
  oxi_dtype (*preferred_weight_dtype)(void* self, oxi_dtype dtype, int64_t rows, int64_t cols);
  /* Optional. Describes the device (--devices). */
  int32_t (*device_info)(void* self, oxi_device_info* info);

  /* ---- ABI 2.1: backends that see several devices (every Vulkan GPU) ---- */
  /* Optional (NULL: one device, the one device_info describes). How many
   * devices the backend can compute on. */
  int32_t (*device_count)(void* self);
  /* Optional. Describes device `index` (0 <= index < device_count); strings
   * live as long as the table. */
  int32_t (*device_info_at)(void* self, int32_t index, oxi_device_info* info);
  /* Optional. Makes device `index` the one this table computes on (0 by
   * default); only before the first buffer_alloc. --device vulkan:1. */
  int32_t (*select_device)(void* self, int32_t index, char* error, size_t error_size);
  /* Tokens per prefill chunk this backend runs best with (GPUs want large
   * GEMMs); 0: the host's default. --prefill-chunk overrides it. */
  int32_t prefill_chunk;
  int32_t reserved_2_1;
} oxi_backend_iface;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* OXINFER_BACKEND_ABI_H_ */
