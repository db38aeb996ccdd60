// How long one parallel region costs: the dispatch overhead decode pays
// hundreds of times per token. Run:
//   bazel run //tools/bench/thread_pool:thread_pool_bench
#include <atomic>

#include "benchmark/benchmark.h"
#include "core/thread_pool.h"

namespace oxinfer {
namespace {

void Touch(void* ctx, int64_t begin, int64_t end, int32_t) {
  auto* sink = static_cast<std::atomic<int64_t>*>(ctx);
  sink->fetch_add(end - begin, std::memory_order_relaxed);
}

void BM_EmptyRegion(benchmark::State& state) {
  ThreadPool pool(static_cast<int>(state.range(0)));
  std::atomic<int64_t> sink{0};
  for (auto _ : state) pool.ParallelFor(1024, 1, &Touch, &sink);
  benchmark::DoNotOptimize(sink.load());
  state.SetLabel("time per region = dispatch + join");
}
BENCHMARK(BM_EmptyRegion)->Arg(1)->Arg(2)->UseRealTime();

}  // namespace
}  // namespace oxinfer

BENCHMARK_MAIN();
