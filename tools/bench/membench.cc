// Read bandwidth of main memory: the physical limit for decode, which streams
// every weight once per token. Each thread reads its own contiguous slice of a
// buffer far larger than the last-level cache, window by window, each window
// as 1, 2, 4 or 8 sequential streams walked in lockstep (one core needs
// several streams in flight to reach its limit; how many depends on the
// machine). The machine's limit is the best of the stream counts for a
// thread count, with 2 MiB pages (see Buffer).
//
//   bazel run -c opt //tools/bench:membench -- --benchmark_min_time=1
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/thread_pool.h"

namespace {

constexpr size_t kBytes = size_t{1} << 30;  // 1 GiB, ~32x this machine's L3

// One buffer per page size: 4 KiB pages, or 2 MiB transparent huge pages
// (madvise), as the host's allocator gives large buffers (core/host_services.cc).
// With small pages the TLB misses of a pure stream cost a large share of the
// bandwidth, so the limit decode is measured against is the huge-page one.
uint64_t* Buffer(bool huge) {
  static uint64_t* bufs[2] = {nullptr, nullptr};
  uint64_t*& buf = bufs[huge ? 1 : 0];
  if (buf == nullptr) {
    constexpr size_t kHugePage = size_t{2} << 20;
    auto* p = static_cast<uint64_t*>(std::aligned_alloc(kHugePage, kBytes));
    (void)madvise(p, kBytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    std::memset(p, 1, kBytes);  // fault every page in before timing
    buf = p;
  }
  return buf;
}

oxinfer::ThreadPool& Pool(int threads) {
  static auto* pools = new std::map<int, std::unique_ptr<oxinfer::ThreadPool>>();
  auto& p = (*pools)[threads];
  if (!p) p = std::make_unique<oxinfer::ThreadPool>(threads);
  return *p;
}

// Sums `streams` equal parts of [p, p + n) in lockstep, a cache line of each
// per step, into one vector accumulator per stream: load-bound, not
// add-bound. On x86 with AVX2 the 32-byte-load build runs (it reads 10-20%
// more than 16-byte loads on this VM's Zen 3); elsewhere 16-byte vectors,
// a register on every 64-bit ISA. (Plain arrays of sums, or vectors wider
// than the ISA's, were kept on the stack by GCC: that measured the loop's
// store-to-load latency, 14 GB/s, not the memory.)
typedef uint64_t U64x2 __attribute__((vector_size(16), aligned(16)));

template <int kStreams>
uint64_t SumStreams(const uint64_t* p, size_t n) {
  const size_t part = n / kStreams / 8 * 8;
  U64x2 acc[kStreams];
#pragma GCC unroll 8
  for (int s = 0; s < kStreams; ++s) acc[s] = U64x2{0, 0};
  for (size_t i = 0; i < part; i += 8) {
#pragma GCC unroll 8
    for (int s = 0; s < kStreams; ++s) {
      const U64x2* q = reinterpret_cast<const U64x2*>(p + s * part + i);
      acc[s] += (q[0] + q[1]) + (q[2] + q[3]);
    }
  }
  uint64_t sum = 0;
  for (int s = 0; s < kStreams; ++s) sum += acc[s][0] + acc[s][1];
  return sum;
}

#if defined(__x86_64__)
#define OXI_MEMBENCH_AVX2 1
typedef uint64_t U64x4 __attribute__((vector_size(32), aligned(32)));

template <int kStreams>
__attribute__((target("avx2"))) uint64_t SumStreamsAvx2(const uint64_t* p, size_t n) {
  const size_t part = n / kStreams / 8 * 8;
  U64x4 acc[kStreams];
#pragma GCC unroll 8
  for (int s = 0; s < kStreams; ++s) acc[s] = U64x4{0, 0, 0, 0};
  for (size_t i = 0; i < part; i += 8) {
#pragma GCC unroll 8
    for (int s = 0; s < kStreams; ++s) {
      const U64x4* q = reinterpret_cast<const U64x4*>(p + s * part + i);
      acc[s] += q[0] + q[1];
    }
  }
  uint64_t sum = 0;
  for (int s = 0; s < kStreams; ++s) sum += acc[s][0] + acc[s][1] + acc[s][2] + acc[s][3];
  return sum;
}
#endif

bool UseAvx2() {
#ifdef OXI_MEMBENCH_AVX2
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2;
#else
  return false;
#endif
}

template <int kStreams>
uint64_t Sum(const uint64_t* p, size_t n) {
#ifdef OXI_MEMBENCH_AVX2
  if (UseAvx2()) return SumStreamsAvx2<kStreams>(p, n);
#endif
  return SumStreams<kStreams>(p, n);
}

// Windows of 32 MiB (a large weight matrix) one after the other, each read
// as `streams` streams: streams megabytes apart read faster here than
// streams hundreds of megabytes apart, and decode reads the former.
uint64_t SumRange(const uint64_t* p, size_t n, int streams) {
  constexpr size_t kWindow = (size_t{32} << 20) / 8;
  uint64_t sum = 0;
  for (size_t i = 0; i < n; i += kWindow) {
    const size_t w = std::min(kWindow, n - i);
    switch (streams) {
      case 1:
        sum += Sum<1>(p + i, w);
        break;
      case 2:
        sum += Sum<2>(p + i, w);
        break;
      case 4:
        sum += Sum<4>(p + i, w);
        break;
      default:
        sum += Sum<8>(p + i, w);
        break;
    }
  }
  return sum;
}

struct ReadCtx {
  const uint64_t* p;
  int streams;
  uint64_t sums[64];
};

void BM_ReadBandwidth(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const int streams = static_cast<int>(state.range(1));
  const bool huge = state.range(2) != 0;
  const uint64_t* buf = Buffer(huge);
  const int64_t words = kBytes / 8;
  oxinfer::ThreadPool& pool = Pool(threads);
  ReadCtx ctx{buf, streams, {}};
  for (auto _ : state) {
    // One contiguous slice per thread (the pool splits [0, n) evenly), in
    // units of 8 KiB.
    pool.ParallelFor(
        words / 1024, 1,
        [](void* c, int64_t b, int64_t e, int32_t t) {
          auto* ctx = static_cast<ReadCtx*>(c);
          ctx->sums[t] += SumRange(ctx->p + b * 1024, (e - b) * 1024, ctx->streams);
        },
        &ctx);
    benchmark::DoNotOptimize(ctx.sums);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * kBytes);
  state.SetLabel("threads=" + std::to_string(threads) + " streams/thread=" +
                 std::to_string(streams) + (huge ? " pages=2M" : " pages=4K") +
                 (UseAvx2() ? " avx2" : " 16-byte loads"));
}

void ThreadArgs(benchmark::internal::Benchmark* b) {
  const int n = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<int> counts;
  for (int t = 1; t <= n; t *= 2) counts.push_back(t);
  if ((n & (n - 1)) != 0) counts.push_back(n);
  for (int t : counts) {
    for (int huge : {1, 0}) {
      for (int streams : {1, 2, 4, 8}) b->Args({t, streams, huge});
    }
  }
}

BENCHMARK(BM_ReadBandwidth)->Apply(ThreadArgs)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
