#include "core/host_services.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/cpu_features.h"
#include "core/host/files.h"
#include "core/host/json.h"
#include "core/host/weights.h"
#include "core/thread_pool.h"

namespace oxinfer {
namespace {

constexpr char kHostVersion[] = "0.1.0";

std::atomic<int> g_log_level{OXI_LOG_WARNING};

void HostLog(int32_t level, const char* plugin_name, const char* message) {
  if (level < g_log_level.load(std::memory_order_relaxed)) return;
  static const char* kLevels[] = {"debug", "info", "warning", "error"};
  const char* lv = (level >= 0 && level <= 3) ? kLevels[level] : "log";
  std::fprintf(stderr, "[%s] %s: %s\n", plugin_name ? plugin_name : "plugin", lv,
               message ? message : "");
}

void HostParallelFor(int64_t n, int64_t grain, oxi_range_fn fn, void* ctx) {
  ThreadPool::Global().ParallelFor(n, grain, fn, ctx);
}

int32_t HostNumThreads() { return ThreadPool::Global().num_threads(); }

uint64_t HostCpuFeatures() { return CpuFeatures(); }

// Large buffers (weights converted at load, KV caches, activations) are
// aligned to 2 MiB and asked to be backed by transparent huge pages: a decode
// step streams every weight once, and with 4 KiB pages the TLB misses cost a
// quarter of the read bandwidth (docs/performance.md). OXINFER_HUGE_PAGES=0
// turns it off, to measure the difference.
constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kHugePageMinBytes = size_t{4} << 20;

bool HugePagesWanted() {
  static const bool wanted = [] {
    const char* v = std::getenv("OXINFER_HUGE_PAGES");
    return v == nullptr || std::strcmp(v, "0") != 0;
  }();
  return wanted;
}

void* HostAlignedAlloc(size_t size) {
  if (size > SIZE_MAX - kHugePage) return nullptr;
  if (size >= kHugePageMinBytes && HugePagesWanted()) {
    const size_t rounded = (size + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(kHugePage, rounded);
    // Advice only: without THP (or with it set to "never") the pages stay small.
    if (p != nullptr) (void)madvise(p, rounded, MADV_HUGEPAGE);
    return p;
  }
  const size_t rounded = (size + 63) / 64 * 64;
  return std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
}

void HostAlignedFree(void* ptr) { std::free(ptr); }

}  // namespace

const oxi_host_services* HostServices() {
  static const oxi_host_services kServices = [] {
    oxi_host_services s = {};
    s.struct_size = sizeof(oxi_host_services);
    s.abi_major = OXI_ABI_MAJOR;
    s.abi_minor = OXI_ABI_MINOR;
    s.host_version = kHostVersion;
    s.log = &HostLog;
    s.parallel_for = &HostParallelFor;
    s.num_threads = &HostNumThreads;
    s.cpu_features = &HostCpuFeatures;
    s.aligned_alloc = &HostAlignedAlloc;
    s.aligned_free = &HostAlignedFree;
    s.read_file = &HostReadFile;
    s.free_blob = &HostFreeBlob;
    s.json_parse = &HostJsonParse;
    s.json_free = &HostJsonFree;
    s.weights_open = &HostWeightsOpen;
    s.weights_release = &HostWeightsRelease;
    s.weights_close = &HostWeightsClose;
    return s;
  }();
  return &kServices;
}

void SetPluginLogLevel(int level) { g_log_level.store(level); }

}  // namespace oxinfer
