// The compute peaks of one core, for the matmul figures' "share of peak":
//   f32 FMA (vfmadd231ps, 2 FLOP per lane), bf16 dot (vdpbf16ps, 4 FLOP per
//   f32 lane: two products and two adds) and int8 dot (vpdpbusd, 8 ops per
//   int32 lane: four products and four adds), at the widest width the CPU
//   has (zmm on AVX-512, else ymm for FMA). Many independent accumulators
//   hide the latency; each benchmark is skipped where the CPU lacks the
//   instruction. The thread count is the benchmark's argument: each thread
//   runs its own chains, so 2 threads on 2 cores gives the machine's peak.
//
//   bazel run -c opt //tools/bench:peakbench
#include <cstdint>

#include "benchmark/benchmark.h"
#include "core/cpu_features.h"
#include "oxinfer/plugin_abi.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace {

constexpr int kChains = 16;          // independent accumulators
constexpr int64_t kInner = 1 << 12;  // iterations between checks of the loop

#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) void FmaYmm(int64_t iters, float* out) {
  __m256 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm256_set1_ps(0.001f * c);
  const __m256 a = _mm256_set1_ps(0.999f), b = _mm256_set1_ps(0.0001f);
  for (int64_t it = 0; it < iters; ++it) {
#pragma GCC unroll 16
    for (int c = 0; c < kChains; ++c) acc[c] = _mm256_fmadd_ps(acc[c], a, b);
  }
  __m256 s = acc[0];
  for (int c = 1; c < kChains; ++c) s = _mm256_add_ps(s, acc[c]);
  _mm256_storeu_ps(out, s);
}

__attribute__((target("avx512f"))) void FmaZmm(int64_t iters, float* out) {
  __m512 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm512_set1_ps(0.001f * c);
  const __m512 a = _mm512_set1_ps(0.999f), b = _mm512_set1_ps(0.0001f);
  for (int64_t it = 0; it < iters; ++it) {
#pragma GCC unroll 16
    for (int c = 0; c < kChains; ++c) acc[c] = _mm512_fmadd_ps(acc[c], a, b);
  }
  __m512 s = acc[0];
  for (int c = 1; c < kChains; ++c) s = _mm512_add_ps(s, acc[c]);
  _mm512_storeu_ps(out, s);
}

__attribute__((target("avx512f,avx512bf16"))) void Bf16Zmm(int64_t iters, float* out) {
  __m512 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm512_set1_ps(0.001f * c);
  const __m512bh a = _mm512_cvtne2ps_pbh(_mm512_set1_ps(0.5f), _mm512_set1_ps(0.25f));
  const __m512bh b = _mm512_cvtne2ps_pbh(_mm512_set1_ps(0.001f), _mm512_set1_ps(0.002f));
  for (int64_t it = 0; it < iters; ++it) {
#pragma GCC unroll 16
    for (int c = 0; c < kChains; ++c) acc[c] = _mm512_dpbf16_ps(acc[c], a, b);
  }
  __m512 s = acc[0];
  for (int c = 1; c < kChains; ++c) s = _mm512_add_ps(s, acc[c]);
  _mm512_storeu_ps(out, s);
}

__attribute__((target("avx512f,avx512vnni"))) void VnniZmm(int64_t iters, float* out) {
  __m512i acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm512_set1_epi32(c);
  const __m512i a = _mm512_set1_epi8(3), b = _mm512_set1_epi8(-2);
  for (int64_t it = 0; it < iters; ++it) {
#pragma GCC unroll 16
    for (int c = 0; c < kChains; ++c) acc[c] = _mm512_dpbusd_epi32(acc[c], a, b);
  }
  __m512i s = acc[0];
  for (int c = 1; c < kChains; ++c) s = _mm512_add_epi32(s, acc[c]);
  _mm512_storeu_ps(out, _mm512_cvtepi32_ps(s));
}
#endif

// ops per loop iteration of one chain: lanes x ops per lane.
void Run(benchmark::State& state, void (*fn)(int64_t, float*), double ops_per_iter) {
  alignas(64) float sink[16];
  for (auto _ : state) {
    fn(kInner, sink);
    benchmark::DoNotOptimize(sink);
  }
  state.counters["OPS"] = benchmark::Counter(ops_per_iter * kChains * kInner,
                                             benchmark::Counter::kIsIterationInvariantRate);
}

bool Has(uint64_t bits) { return (oxinfer::CpuFeatures() & bits) == bits; }

void BM_F32Fma(benchmark::State& state) {
#if defined(__x86_64__)
  if (Has(OXI_CPU_AVX512F)) {
    state.SetLabel("vfmadd231ps zmm, FLOP/s");
    return Run(state, FmaZmm, 16 * 2);
  }
  if (Has(OXI_CPU_AVX2 | OXI_CPU_FMA)) {
    state.SetLabel("vfmadd231ps ymm, FLOP/s");
    return Run(state, FmaYmm, 8 * 2);
  }
#endif
  state.SkipWithError("no FMA on this CPU");
}

void BM_Bf16Dot(benchmark::State& state) {
#if defined(__x86_64__)
  if (Has(OXI_CPU_AVX512BF16)) {
    state.SetLabel("vdpbf16ps zmm, FLOP/s");
    return Run(state, Bf16Zmm, 16 * 4);
  }
#endif
  state.SkipWithError("no AVX512_BF16 on this CPU");
}

void BM_Int8Dot(benchmark::State& state) {
#if defined(__x86_64__)
  if (Has(OXI_CPU_AVX512VNNI)) {
    state.SetLabel("vpdpbusd zmm, int8 ops/s");
    return Run(state, VnniZmm, 16 * 8);
  }
#endif
  state.SkipWithError("no AVX512_VNNI on this CPU");
}

BENCHMARK(BM_F32Fma)->ThreadRange(1, 2)->UseRealTime();
BENCHMARK(BM_Bf16Dot)->ThreadRange(1, 2)->UseRealTime();
BENCHMARK(BM_Int8Dot)->ThreadRange(1, 2)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
