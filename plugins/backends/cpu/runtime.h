// What every kernel of a variant runs on: the host's thread pool, per-thread
// scratch memory, and the report of a failed op ("<op>: <what>").
//
// Nothing here may run before the plugin's score() accepted the CPU, so there
// are no namespace-scope objects with dynamic initialisers, and no SDK C++
// headers (their inline functions, compiled here with -march flags, could be
// the copy the linker keeps for the entry object).
#ifndef OXINFER_PLUGINS_BACKENDS_CPU_RUNTIME_H_
#define OXINFER_PLUGINS_BACKENDS_CPU_RUNTIME_H_

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "oxinfer/abi_common.h"

#ifndef OXI_CPU_NS
#error "OXI_CPU_NS must name the variant (scalar, avx2, avx512, neon)"
#endif

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {

// The host services of this process (set once, by GetInterface); NULL fields
// are absent services.
const oxi_host_services& Host();
void SetHost(const oxi_host_services* host);
int32_t NumThreads();

// A kernel that failed on a pool thread (out of scratch memory) says so here;
// execute() turns it into the op's error.
void NoteKernelFailure();
bool TakeKernelFailure();

// Runs fn(begin, end) over [0, n) on the host's pool, at least `grain` items
// per range. Nested calls run inline (the host's pool does so).
template <typename Fn>
void Parallel(int64_t n, int64_t grain, Fn&& fn) {
  if (n <= 0) return;
  using FnT = std::remove_reference_t<Fn>;
  const oxi_range_fn trampoline = [](void* ctx, int64_t begin, int64_t end, int32_t) {
    try {
      (*static_cast<FnT*>(ctx))(begin, end);
    } catch (...) {  // no exception may cross the host's pool
      NoteKernelFailure();
    }
  };
  if (Host().parallel_for == nullptr) {
    trampoline(const_cast<void*>(static_cast<const void*>(&fn)), 0, n, 0);
    return;
  }
  Host().parallel_for(n, grain, trampoline, const_cast<void*>(static_cast<const void*>(&fn)));
}

// Per-thread scratch memory, reused across calls (no allocation per token),
// 64-byte aligned. A slot's memory is valid until the same thread asks for
// that slot again; each user owns a slot.
enum ScratchSlot {
  kScratchWeights = 0,  // weight rows converted / packed (GEMM, convert)
  kScratchAct = 1,      // activations quantised to Q8_0
  kScratchActF32 = 2,   // activations rearranged as f32
  kScratchScores = 3,   // attention scores, rope tables, row temporaries
  kScratchPackX = 4,    // a strided matmul input packed dense
  kScratchPackY = 5,    // a strided matmul output computed dense
  kScratchOp = 6,       // an op's own temporaries (delta rule, im2col, ...)
  kScratchOp2 = 7,
  kScratchSlots = 8,
};
void* Scratch(int slot, size_t bytes);

// Where an op's failure goes: "<op>: <message>" in the caller's buffer (none
// for supports(), which only wants the answer).
struct Report {
  const char* op = "";
  char* error = nullptr;
  size_t error_size = 0;

  // Writes the message and returns `code`.
  int32_t Fail(int32_t code, const char* fmt, ...) const __attribute__((format(printf, 3, 4)));
};

#define OXI_CPU_TRY(expr)                          \
  do {                                             \
    const int32_t oxi_cpu_rc_ = (expr);            \
    if (oxi_cpu_rc_ != OXI_OK) return oxi_cpu_rc_; \
  } while (0)

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_BACKENDS_CPU_RUNTIME_H_
