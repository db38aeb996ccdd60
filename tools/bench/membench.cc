// Read bandwidth of main memory: the physical limit for decode, which streams
// every weight once per token. Each thread sums its own contiguous slice of a
// buffer far larger than the last-level cache.
//
//   bazel run -c opt //tools/bench:membench -- --benchmark_min_time=2
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <thread>

#include "benchmark/benchmark.h"
#include "core/thread_pool.h"

namespace {

constexpr size_t kBytes = size_t{1} << 30;  // 1 GiB, ~32x this machine's L3

uint64_t* Buffer() {
  static uint64_t* buf = [] {
    auto* p = static_cast<uint64_t*>(std::aligned_alloc(64, kBytes));
    std::memset(p, 1, kBytes);  // fault every page in before timing
    return p;
  }();
  return buf;
}

oxinfer::ThreadPool& Pool(int threads) {
  static auto* pools = new std::map<int, std::unique_ptr<oxinfer::ThreadPool>>();
  auto& p = (*pools)[threads];
  if (!p) p = std::make_unique<oxinfer::ThreadPool>(threads);
  return *p;
}

// Four independent sums so the loop is load-bound, not add-latency-bound;
// the compiler vectorises it with the baseline ISA's 16-byte loads, which is
// already far above DRAM bandwidth.
uint64_t SumRange(const uint64_t* p, size_t n) {
  uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (size_t i = 0; i + 4 <= n; i += 4) {
    s0 += p[i];
    s1 += p[i + 1];
    s2 += p[i + 2];
    s3 += p[i + 3];
  }
  return s0 + s1 + s2 + s3;
}

struct ReadCtx {
  const uint64_t* p;
  uint64_t sums[64];
};

void BM_ReadBandwidth(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const uint64_t* buf = Buffer();
  const int64_t words = kBytes / 8;
  oxinfer::ThreadPool& pool = Pool(threads);
  ReadCtx ctx{buf, {}};
  for (auto _ : state) {
    // Chunks of 8 KiB words, split evenly across the pool.
    pool.ParallelFor(
        words / 1024, 1,
        [](void* c, int64_t b, int64_t e, int32_t t) {
          auto* ctx = static_cast<ReadCtx*>(c);
          ctx->sums[t] += SumRange(ctx->p + b * 1024, (e - b) * 1024);
        },
        &ctx);
    benchmark::DoNotOptimize(ctx.sums);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * kBytes);
  state.counters["threads"] = threads;
}

void ThreadArgs(benchmark::internal::Benchmark* b) {
  const int n = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (int t = 1; t <= n; t *= 2) b->Arg(t);
  if ((n & (n - 1)) != 0) b->Arg(n);
}

BENCHMARK(BM_ReadBandwidth)->Apply(ThreadArgs)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
