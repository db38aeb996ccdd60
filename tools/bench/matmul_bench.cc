// Matmul speed of the CPU backend's kernels, called through the backend
// table as a model would.
//   Decode: y[1][n] = x[1][k] W[n][k]^T with W far larger than the L3 cache
//   (14336x4096, rotated among copies when one copy would fit), reported as
//   weight bytes streamed per second: compare with membench.
//   Prefill: 512x4096 by 4096x4096, reported as FLOP/s.
// Weights are held as a model holds them: in the layout the backend's
// matmul_weight_dtype() picks (Q4_0 -> Q4_0x8 on AVX2); type indices 5 and 6
// force plain Q8_0 and Q4_0 rows for comparison.
//
//   bazel run -c opt //tools/bench:matmul_bench -- --benchmark_filter=Decode
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/host_services.h"
#include "core/thread_pool.h"
#include "oxinfer/dtype.h"
#include "oxinfer/plugin_abi.h"

namespace oxinfer {
namespace cpu {
namespace avx2 {
const oxi_backend_iface* GetInterface(const oxi_host_services* host);
}
namespace scalar {
const oxi_backend_iface* GetInterface(const oxi_host_services* host);
}
}  // namespace cpu
}  // namespace oxinfer

namespace {

constexpr int64_t kDecodeN = 14336, kDecodeK = 4096;
constexpr int64_t kPrefillM = 512, kPrefillN = 4096, kPrefillK = 4096;
// Total weight bytes a decode pass rotates through: eight times this machine's
// 32 MiB L3, so every pass comes from DRAM.
constexpr int64_t kMinStreamBytes = int64_t{256} << 20;

const oxi_backend_iface* Backend() {
  static const oxi_backend_iface* iface = [] {
    const uint64_t need = OXI_CPU_AVX2 | OXI_CPU_FMA | OXI_CPU_F16C;
    const oxi_host_services* host = oxinfer::HostServices();
    return (host->cpu_features() & need) == need ? oxinfer::cpu::avx2::GetInterface(host)
                                                 : oxinfer::cpu::scalar::GetInterface(host);
  }();
  return iface;
}

struct Weights {
  std::vector<void*> copies;
  int64_t bytes = 0;
};

void* AlignedAlloc(size_t bytes) { return std::aligned_alloc(64, (bytes + 63) / 64 * 64); }

// Weights [n][k] of dtype t, random, cached per shape and type.
const Weights& GetWeights(oxi_dtype t, int64_t n, int64_t k, bool rotate) {
  static auto* cache = new std::map<std::string, Weights>();
  const std::string key =
      std::to_string(t) + "/" + std::to_string(n) + "/" + std::to_string(k) + (rotate ? "r" : "");
  auto it = cache->find(key);
  if (it != cache->end()) return it->second;
  Weights w;
  w.bytes = oxi_dtype_row_bytes(t, k) * n;
  const int64_t copies =
      rotate ? std::max<int64_t>(1, (kMinStreamBytes + w.bytes - 1) / w.bytes) : 1;
  std::vector<float> src(n * k);
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (float& f : src) f = dist(rng);
  for (int64_t c = 0; c < copies; ++c) {
    void* p = AlignedAlloc(w.bytes);
    Backend()->convert(nullptr, src.data(), OXI_DTYPE_F32, p, t, n, k);
    w.copies.push_back(p);
  }
  return (*cache)[key] = std::move(w);
}

const oxi_dtype kTypes[] = {OXI_DTYPE_F32,  OXI_DTYPE_BF16, OXI_DTYPE_F16, OXI_DTYPE_Q8_0,
                            OXI_DTYPE_Q4_0, OXI_DTYPE_Q8_0, OXI_DTYPE_Q4_0};

// The storage for benchmark type index i of a weight [n][k].
oxi_dtype Storage(int64_t i, int64_t n, int64_t k) {
  const oxi_dtype t = kTypes[i];
  const oxi_backend_iface* b = Backend();
  if (i >= 5 || b->matmul_weight_dtype == nullptr) return t;
  return b->matmul_weight_dtype(b->self, t, n, k);
}

void BM_Decode(benchmark::State& state) {
  const oxi_dtype t = Storage(state.range(0), kDecodeN, kDecodeK);
  const int threads = static_cast<int>(state.range(1));
  const int64_t m = state.range(2);
  oxinfer::ThreadPool::SetGlobalThreads(threads);
  const Weights& w = GetWeights(t, kDecodeN, kDecodeK, true);
  std::vector<float> x(m * kDecodeK, 0.5f), y(m * kDecodeN);
  const oxi_backend_iface* b = Backend();
  size_t i = 0;
  for (auto _ : state) {
    b->matmul(b->self, x.data(), m, kDecodeK, w.copies[i++ % w.copies.size()], t, kDecodeN,
              y.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * w.bytes);
  state.SetLabel(std::string(oxi_dtype_name(t)) + " m=" + std::to_string(m) +
                 " threads=" + std::to_string(threads));
}

// The same kernels on a weight that stays in cache: their compute ceiling,
// which must exceed the DRAM bandwidth for decode to be bandwidth-bound.
void BM_DecodeCached(benchmark::State& state) {
  const int64_t kN = state.range(1);
  const oxi_dtype t = Storage(state.range(0), kN, kDecodeK);
  oxinfer::ThreadPool::SetGlobalThreads(1);
  const Weights& w = GetWeights(t, kN, kDecodeK, false);
  std::vector<float> x(kDecodeK, 0.5f), y(kN);
  const oxi_backend_iface* b = Backend();
  for (auto _ : state) {
    b->matmul(b->self, x.data(), 1, kDecodeK, w.copies[0], t, kN, y.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * w.bytes);
  state.SetLabel(std::string(oxi_dtype_name(t)) + " m=1 threads=1, " +
                 std::to_string(w.bytes >> 10) + " KiB in cache");
}

void BM_Prefill(benchmark::State& state) {
  const oxi_dtype t = Storage(state.range(0), kPrefillN, kPrefillK);
  const int threads = static_cast<int>(state.range(1));
  oxinfer::ThreadPool::SetGlobalThreads(threads);
  const Weights& w = GetWeights(t, kPrefillN, kPrefillK, false);
  std::vector<float> x(kPrefillM * kPrefillK), y(kPrefillM * kPrefillN);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (float& f : x) f = dist(rng);
  const oxi_backend_iface* b = Backend();
  for (auto _ : state) {
    b->matmul(b->self, x.data(), kPrefillM, kPrefillK, w.copies[0], t, kPrefillN, y.data());
    benchmark::ClobberMemory();
  }
  state.counters["FLOPS"] = benchmark::Counter(2.0 * kPrefillM * kPrefillN * kPrefillK,
                                               benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(std::string(oxi_dtype_name(t)) + " threads=" + std::to_string(threads));
}

// Decode attention: one query token against a long KV cache (grouped-query:
// n_heads query heads share n_kv_heads KV heads), KV bytes read per second.
void BM_AttentionDecode(benchmark::State& state) {
  const int64_t n_kv = state.range(0);
  const int32_t n_heads = static_cast<int32_t>(state.range(1));
  const int32_t n_kv_heads = static_cast<int32_t>(state.range(2));
  const int32_t hd = 256;
  oxinfer::ThreadPool::SetGlobalThreads(static_cast<int>(state.range(3)));
  std::vector<float> q(n_heads * hd, 0.01f), out(n_heads * hd);
  std::vector<float> k(n_kv * n_kv_heads * hd), v(n_kv * n_kv_heads * hd);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (float& f : k) f = dist(rng);
  for (float& f : v) f = dist(rng);
  std::vector<int32_t> kv_pos(n_kv);
  for (int64_t i = 0; i < n_kv; ++i) kv_pos[i] = static_cast<int32_t>(i);
  const int32_t q_pos = static_cast<int32_t>(n_kv);
  oxi_attention_params p = {};
  p.struct_size = sizeof p;
  p.n_q = 1;
  p.n_kv = n_kv;
  p.n_heads = n_heads;
  p.n_kv_heads = n_kv_heads;
  p.head_dim = p.v_head_dim = hd;
  p.q = q.data();
  p.k = k.data();
  p.v = v.data();
  p.q_pos = &q_pos;
  p.kv_pos = kv_pos.data();
  p.out = out.data();
  p.scale = 0.0625f;
  p.causal = 1;
  const oxi_backend_iface* b = Backend();
  for (auto _ : state) {
    b->attention(b->self, &p);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 2 * n_kv * n_kv_heads * hd *
                          4);
}

// Quantisation at load: bf16 weights [4096][4096] to the storage the backend
// asks for (q8_0x8 / q4_0x8 on AVX2), reported as bf16 bytes read per second.
void BM_QuantiseAtLoad(benchmark::State& state) {
  const int64_t n = 4096, k = 4096;
  const oxi_dtype t = Storage(state.range(0), n, k);
  oxinfer::ThreadPool::SetGlobalThreads(1);
  std::vector<uint16_t> src(n * k);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (uint16_t& h : src) h = oxi_f32_to_bf16(dist(rng));
  std::vector<uint8_t> dst(static_cast<size_t>(oxi_dtype_row_bytes(t, k) * n) + 64);
  const oxi_backend_iface* b = Backend();
  for (auto _ : state) {
    b->convert(b->self, src.data(), OXI_DTYPE_BF16, dst.data(), t, n, k);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * n * k * 2);
  state.SetLabel(std::string("bf16 -> ") + oxi_dtype_name(t) + ", 1 thread");
}

void DecodeArgs(benchmark::internal::Benchmark* b) {
  for (int t = 0; t < 7; ++t) {
    for (int threads : {1, 2}) b->Args({t, threads, 1});
  }
  for (int t = 0; t < 7; ++t) b->Args({t, 2, 4});
}

void PrefillArgs(benchmark::internal::Benchmark* b) {
  for (int t = 0; t < 7; ++t) {
    for (int threads : {1, 2}) b->Args({t, threads});
  }
}

BENCHMARK(BM_Decode)->Apply(DecodeArgs)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AttentionDecode)
    ->Args({4096, 8, 1, 1})
    ->Args({4096, 8, 1, 2})
    ->Args({4096, 16, 8, 2})
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DecodeCached)
    ->ArgsProduct({{0, 1, 2, 3, 4, 5, 6}, {64, 256}})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Prefill)->Apply(PrefillArgs)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_QuantiseAtLoad)->Arg(3)->Arg(4)->Arg(5)->Arg(6)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
