#include "plugins/backends/cpu/runtime.h"

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <vector>

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {
namespace {

// Zero-initialised (constant initialisation): no code runs at load time.
oxi_host_services g_host;
std::atomic<bool> g_kernel_failed{false};

}  // namespace

const oxi_host_services& Host() { return g_host; }

void SetHost(const oxi_host_services* host) {
  // Only the fields the kernels use, each checked against the host's size.
  std::memset(&g_host, 0, sizeof g_host);
  g_host.struct_size = sizeof g_host;
  if (host == nullptr) return;
  if (OXI_HAS_FIELD(host, oxi_host_services, parallel_for))
    g_host.parallel_for = host->parallel_for;
  if (OXI_HAS_FIELD(host, oxi_host_services, num_threads)) g_host.num_threads = host->num_threads;
  // The kernels' feature tiers (VNNI, BF16) are chosen from it.
  if (OXI_HAS_FIELD(host, oxi_host_services, cpu_features)) {
    g_host.cpu_features = host->cpu_features;
  }
  if (OXI_HAS_FIELD(host, oxi_host_services, aligned_free)) {
    // Both or neither: memory from one allocator is released by the same.
    if (host->aligned_alloc != nullptr && host->aligned_free != nullptr) {
      g_host.aligned_alloc = host->aligned_alloc;
      g_host.aligned_free = host->aligned_free;
    }
  }
}

int32_t NumThreads() {
  const int32_t n = g_host.num_threads != nullptr ? g_host.num_threads() : 1;
  return n > 0 ? n : 1;
}

void NoteKernelFailure() { g_kernel_failed.store(true, std::memory_order_relaxed); }
bool TakeKernelFailure() {
  // A load first: the exchange (a locked instruction) only after a failure.
  return g_kernel_failed.load(std::memory_order_relaxed) &&
         g_kernel_failed.exchange(false, std::memory_order_relaxed);
}

void* Scratch(int slot, size_t bytes) {
  thread_local std::vector<uint64_t> buffers[kScratchSlots];
  std::vector<uint64_t>& b = buffers[slot];
  const size_t words = (bytes + 64) / 8 + 8;
  if (b.size() < words) b.resize(words);
  uintptr_t p = reinterpret_cast<uintptr_t>(b.data());
  p = (p + 63) & ~uintptr_t{63};
  return reinterpret_cast<void*>(p);
}

int32_t Report::Fail(int32_t code, const char* fmt, ...) const {
  if (error == nullptr || error_size == 0) return code;
  const int n = std::snprintf(error, error_size, "%s: ", op);
  if (n >= 0 && static_cast<size_t>(n) < error_size) {
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(error + n, error_size - n, fmt, args);
    va_end(args);
  }
  return code;
}

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer
