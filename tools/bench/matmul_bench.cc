// Speed of the CPU backend's kernels, called through the backend table's
// execute() as a model calls them (ABI 2: tensors in backend buffers).
//   Decode: y[1][n] = x[1][k] W[n][k]^T with W far larger than the L3 cache
//   (14336x4096, rotated among copies when one copy would fit), reported as
//   weight bytes streamed per second: compare with membench.
//   Prefill: 512x4096 by 4096x4096, reported as FLOP/s.
//   SmallOp: one op on tiny tensors (rms_norm of one row of 1024): what a
//   call through execute() costs, validation included.
// Weights are held as a model holds them: in the layout the backend's
// preferred_weight_dtype() picks (Q4_0 -> Q4_0x8 on AVX2); type indices 5 and
// 6 force plain Q8_0 and Q4_0 rows for comparison. The AVX2 variant runs
// where the CPU has it (OXINFER_BENCH_VARIANT=scalar|avx2|avx512 to choose).
//
//   bazel run -c opt //tools/bench:matmul_bench -- --benchmark_filter=Decode
//   OXINFER_BENCH_DECODE_SHAPE=248320x1024 ... : a model's own matrix instead
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/host_services.h"
#include "core/thread_pool.h"
#include "oxinfer/plugin.hpp"

namespace oxinfer {
namespace cpu {
namespace avx2 {
const oxi_backend_iface* GetInterface(const oxi_host_services* host);
}
namespace avx512 {
const oxi_backend_iface* GetInterface(const oxi_host_services* host);
}
namespace scalar {
const oxi_backend_iface* GetInterface(const oxi_host_services* host);
}
}  // namespace cpu
}  // namespace oxinfer

namespace {

using oxinfer::sdk::Buffer;
using oxinfer::sdk::Compute;
using oxinfer::sdk::Tensor;

// The decode shape: 14336x4096, or OXINFER_BENCH_DECODE_SHAPE=NxK (a
// model's own matrices: 248320x1024 is Qwen3.5-0.8B's head, 3584x1024 its MLP).
const std::pair<int64_t, int64_t>& DecodeShape() {
  static const std::pair<int64_t, int64_t> shape = [] {
    std::pair<int64_t, int64_t> s{14336, 4096};
    const char* v = std::getenv("OXINFER_BENCH_DECODE_SHAPE");
    long long n = 0, k = 0;
    if (v != nullptr && std::sscanf(v, "%lldx%lld", &n, &k) == 2 && n > 0 && k > 0) s = {n, k};
    return s;
  }();
  return shape;
}
int64_t DecodeN() { return DecodeShape().first; }
int64_t DecodeK() { return DecodeShape().second; }
constexpr int64_t kPrefillM = 512, kPrefillN = 4096, kPrefillK = 4096;
// Total weight bytes a decode pass rotates through: eight times a 32 MiB
// L3, so every pass comes from DRAM.
constexpr int64_t kMinStreamBytes = int64_t{256} << 20;

const oxi_backend_iface* Backend() {
  static const oxi_backend_iface* iface = [] {
    const oxi_host_services* host = oxinfer::HostServices();
    const uint64_t have = host->cpu_features();
    const char* env = std::getenv("OXINFER_BENCH_VARIANT");
    const std::string want = env != nullptr ? env : "avx2";
    if (want == "avx512" && (have & OXI_CPU_X86_64_V4) == OXI_CPU_X86_64_V4) {
      return oxinfer::cpu::avx512::GetInterface(host);
    }
    if (want != "scalar" && (have & OXI_CPU_X86_64_V3) == OXI_CPU_X86_64_V3) {
      return oxinfer::cpu::avx2::GetInterface(host);
    }
    return oxinfer::cpu::scalar::GetInterface(host);
  }();
  return iface;
}

const Compute& Cx() {
  static const Compute* cx = new Compute(Backend());
  return *cx;
}

void Check(const oxinfer::sdk::Status& s) {
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    std::abort();
  }
}

template <typename T>
T Get(oxinfer::sdk::StatusOr<T> v) {
  Check(v.status());
  return std::move(*v);
}

// A packed tensor in a new buffer, from host values (or uninitialised).
struct Owned {
  Buffer buffer;
  Tensor t;
};
Owned NewTensor(oxi_dtype dtype, int64_t rows, int64_t cols, const void* data = nullptr) {
  Owned o;
  o.buffer = Get(Cx().Alloc(static_cast<uint64_t>(oxi_dtype_row_bytes(dtype, cols) * rows)));
  o.t = Tensor(o.buffer.get(), 0, dtype, rows, cols);
  if (data != nullptr) Check(Cx().Write(o.t, data));
  return o;
}

std::vector<float> Uniform(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& f : v) f = dist(rng);
  return v;
}

// Weights [n][k] of dtype t, random, converted by the backend; cached per
// shape and type (copies to rotate through for decode).
const std::vector<Owned>& GetWeights(oxi_dtype t, int64_t n, int64_t k, bool rotate) {
  static auto* cache = new std::map<std::string, std::vector<Owned>>();
  const std::string key =
      std::to_string(t) + "/" + std::to_string(n) + "/" + std::to_string(k) + (rotate ? "r" : "");
  auto it = cache->find(key);
  if (it != cache->end()) return it->second;
  const int64_t bytes = oxi_dtype_row_bytes(t, k) * n;
  const int64_t copies = rotate ? std::max<int64_t>(1, (kMinStreamBytes + bytes - 1) / bytes) : 1;
  const std::vector<float> src = Uniform(static_cast<size_t>(n * k), 42);
  const Owned f32 = NewTensor(OXI_DTYPE_F32, n, k, src.data());
  std::vector<Owned> w;
  for (int64_t c = 0; c < copies; ++c) {
    w.push_back(NewTensor(t, n, k));
    Check(Cx().Convert(f32.t, w.back().t));
  }
  return (*cache)[key] = std::move(w);
}

const oxi_dtype kTypes[] = {OXI_DTYPE_F32,  OXI_DTYPE_BF16, OXI_DTYPE_F16, OXI_DTYPE_Q8_0,
                            OXI_DTYPE_Q4_0, OXI_DTYPE_Q8_0, OXI_DTYPE_Q4_0};

// The storage for benchmark type index i of a weight [n][k].
oxi_dtype Storage(int64_t i, int64_t n, int64_t k) {
  const oxi_dtype t = kTypes[i];
  return i >= 5 ? t : Cx().PreferredWeightDtype(t, n, k);
}

void Execute(const oxi_op& op) {
  const oxi_backend_iface* b = Backend();
  const oxi_op* ops[1] = {&op};
  char error[512];
  if (b->execute(b->self, ops, 1, error, sizeof error) != OXI_OK) {
    std::fprintf(stderr, "%s\n", error);
    std::abort();
  }
}

void BM_Decode(benchmark::State& state) {
  const oxi_dtype t = Storage(state.range(0), DecodeN(), DecodeK());
  const int threads = static_cast<int>(state.range(1));
  const int64_t m = state.range(2);
  oxinfer::ThreadPool::SetGlobalThreads(threads);
  const std::vector<Owned>& w = GetWeights(t, DecodeN(), DecodeK(), true);
  const std::vector<float> xs(m * DecodeK(), 0.5f);
  const Owned x = NewTensor(OXI_DTYPE_F32, m, DecodeK(), xs.data());
  const Owned y = NewTensor(OXI_DTYPE_F32, m, DecodeN());
  auto a = Compute::Make<oxi_matmul_args>(OXI_OP_MATMUL);
  a.x = x.t;
  a.y = y.t;
  size_t i = 0;
  for (auto _ : state) {
    a.w = w[i++ % w.size()].t;
    Execute(a.op);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * w[0].t.extent());
  state.SetLabel(std::string(oxi_dtype_name(t)) + " m=" + std::to_string(m) +
                 " threads=" + std::to_string(threads));
}

// The same kernels on a weight that stays in cache: their compute ceiling,
// which must exceed the DRAM bandwidth for decode to be bandwidth-bound.
void BM_DecodeCached(benchmark::State& state) {
  const int64_t n = state.range(1);
  const oxi_dtype t = Storage(state.range(0), n, DecodeK());
  oxinfer::ThreadPool::SetGlobalThreads(1);
  const std::vector<Owned>& w = GetWeights(t, n, DecodeK(), false);
  const std::vector<float> xs(DecodeK(), 0.5f);
  const Owned x = NewTensor(OXI_DTYPE_F32, 1, DecodeK(), xs.data());
  const Owned y = NewTensor(OXI_DTYPE_F32, 1, n);
  auto a = Compute::Make<oxi_matmul_args>(OXI_OP_MATMUL);
  a.x = x.t;
  a.w = w[0].t;
  a.y = y.t;
  for (auto _ : state) {
    Execute(a.op);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * w[0].t.extent());
  state.SetLabel(std::string(oxi_dtype_name(t)) + " m=1 threads=1, " +
                 std::to_string(w[0].t.extent() >> 10) + " KiB in cache");
}

void BM_Prefill(benchmark::State& state) {
  const oxi_dtype t = Storage(state.range(0), kPrefillN, kPrefillK);
  const int threads = static_cast<int>(state.range(1));
  oxinfer::ThreadPool::SetGlobalThreads(threads);
  const std::vector<Owned>& w = GetWeights(t, kPrefillN, kPrefillK, false);
  const std::vector<float> xs = Uniform(kPrefillM * kPrefillK, 1);
  const Owned x = NewTensor(OXI_DTYPE_F32, kPrefillM, kPrefillK, xs.data());
  const Owned y = NewTensor(OXI_DTYPE_F32, kPrefillM, kPrefillN);
  auto a = Compute::Make<oxi_matmul_args>(OXI_OP_MATMUL);
  a.x = x.t;
  a.w = w[0].t;
  a.y = y.t;
  for (auto _ : state) {
    Execute(a.op);
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
  const std::vector<float> qs(n_heads * hd, 0.01f);
  const std::vector<float> ks = Uniform(n_kv * n_kv_heads * hd, 3);
  const std::vector<float> vs = Uniform(n_kv * n_kv_heads * hd, 4);
  std::vector<int32_t> kv_pos(n_kv);
  for (int64_t i = 0; i < n_kv; ++i) kv_pos[i] = static_cast<int32_t>(i);
  const int32_t q_pos = static_cast<int32_t>(n_kv);
  const Owned q = NewTensor(OXI_DTYPE_F32, 1, n_heads * hd, qs.data());
  const Owned k = NewTensor(OXI_DTYPE_F32, n_kv, n_kv_heads * hd, ks.data());
  const Owned v = NewTensor(OXI_DTYPE_F32, n_kv, n_kv_heads * hd, vs.data());
  const Owned qp = NewTensor(OXI_DTYPE_I32, 1, 1, &q_pos);
  const Owned kp = NewTensor(OXI_DTYPE_I32, 1, n_kv, kv_pos.data());
  const Owned out = NewTensor(OXI_DTYPE_F32, 1, n_heads * hd);
  auto a = Compute::AttentionArgs();
  a.q = q.t, a.k = k.t, a.v = v.t, a.q_pos = qp.t, a.kv_pos = kp.t, a.out = out.t;
  a.n_heads = n_heads;
  a.n_kv_heads = n_kv_heads;
  a.head_dim = a.v_head_dim = hd;
  a.scale = 0.0625f;
  a.causal = 1;
  for (auto _ : state) {
    Execute(a.op);
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
  const Owned s = NewTensor(OXI_DTYPE_BF16, n, k, src.data());
  const Owned d = NewTensor(t, n, k);
  auto a = Compute::Make<oxi_convert_args>(OXI_OP_CONVERT);
  a.src = s.t;
  a.dst = d.t;
  for (auto _ : state) {
    Execute(a.op);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * n * k * 2);
  state.SetLabel(std::string("bf16 -> ") + oxi_dtype_name(t) + ", 1 thread");
}

// What one call costs: rms_norm of one row of 1024, through
// execute() (header, operands, memory and shape checks, then the kernel), and
// supports() alone.
void BM_SmallOp(benchmark::State& state) {
  oxinfer::ThreadPool::SetGlobalThreads(1);
  const std::vector<float> xs = Uniform(1024, 6), ws = Uniform(1024, 7);
  const Owned x = NewTensor(OXI_DTYPE_F32, 1, 1024, xs.data());
  const Owned w = NewTensor(OXI_DTYPE_F32, 1, 1024, ws.data());
  const Owned y = NewTensor(OXI_DTYPE_F32, 1, 1024);
  auto a = Compute::Make<oxi_rms_norm_args>(OXI_OP_RMS_NORM);
  a.x = x.t;
  a.weight = w.t;
  a.out = y.t;  // not in place: repeated in place, x would sink to denormals
  a.eps = 1e-6f;
  const oxi_backend_iface* b = Backend();
  if (state.range(0) == 0) {
    for (auto _ : state) {
      Execute(a.op);
      benchmark::ClobberMemory();
    }
    state.SetLabel("rms_norm 1x1024 through execute()");
  } else {
    for (auto _ : state) benchmark::DoNotOptimize(b->supports(b->self, &a.op));
    state.SetLabel("supports() of it");
  }
}

void DecodeArgs(benchmark::internal::Benchmark* b) {
  for (int t = 0; t < 7; ++t) {
    for (int threads : {1, 2}) b->Args({t, threads, 1});
  }
  for (int t = 0; t < 7; ++t) b->Args({t, 2, 4});
  // Multi-token decode (speculative verification): bf16, Q8_0, Q4_0 at
  // m = 2..8 on 1 thread, to set against m = 1.
  for (int t : {1, 3, 4}) {
    for (int m : {2, 3, 4, 6, 8}) b->Args({t, 1, m});
  }
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
BENCHMARK(BM_SmallOp)->Arg(0)->Arg(1)->Unit(benchmark::kNanosecond);

}  // namespace

BENCHMARK_MAIN();
