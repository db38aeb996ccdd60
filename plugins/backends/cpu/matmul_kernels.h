// The matmul kernels of a variant, y[m][n] = x[m][k] W[n][k]^T on dense f32
// activations and outputs (matmul.cc packs strided views around them):
//   - decode (m <= kDecodeMaxM): weight-streaming kernels per storage type
//     (matmul_float_decode.cc, matmul_quant_decode.cc, matmul_x8.cc);
//   - prefill: a register-blocked f32 GEMM on converted weight panels
//     (matmul_gemm.cc), or integer dots on Q4_0x8 (matmul_x8.cc).
// On Q8_0 / Q4_0 weights each activation row is first quantised to Q8_0, as
// ggml does (QuantAct), so decode and prefill agree to rounding.
#ifndef OXINFER_PLUGINS_BACKENDS_CPU_MATMUL_KERNELS_H_
#define OXINFER_PLUGINS_BACKENDS_CPU_MATMUL_KERNELS_H_

#include <cstdint>

#include "oxinfer/dtype.h"
#include "plugins/backends/cpu/runtime.h"
#include "plugins/backends/cpu/simd.h"

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {

// Weight rows per parallel range in decode: big enough to amortise dispatch.
constexpr int64_t kDecodeGrain = 16;
// Largest m served by the weight-streaming decode kernels.
constexpr int64_t kDecodeMaxM = 8;

// Multi-row decode (m = 2..kDecodeMaxM) is compute-bound about as much as it
// is bound by the weight stream, and on Zen 4 the two did not overlap: a
// 4-row bf16 pass over the 0.8B's head took the sum of its FMA time and a
// one-row pass's read time. Asking for each stream's line this far ahead
// into L2 lets the reads run under the arithmetic (1.9x -> 1.05x a one-row
// pass in a standalone test); one-row kernels, bound by the stream alone,
// are left to the hardware prefetcher, which they lose against.
constexpr int64_t kMultiRowPrefetchBytes = 4096;
inline void PrefetchL2(const uint8_t* p) {
#if OXI_KERNELS_X86
  _mm_prefetch(reinterpret_cast<const char*>(p), _MM_HINT_T1);
#else
  __builtin_prefetch(p, 0, 2);
#endif
}

// y[m][n] = x[m][k] W^T, x and y dense; W's rows `row_bytes` apart (packed
// for the _X8 forms). Uses scratch slots kScratchAct and kScratchActF32 in
// the calling thread.
void MatmulDense(const float* x, int64_t m, int64_t k, const uint8_t* w, oxi_dtype wt,
                 int64_t row_bytes, int64_t n, float* y);

// MatmulDense on strided views (rows ldx / ldy floats apart), packed dense
// in scratch slots kScratchPackX / kScratchPackY of the calling thread where
// they are not; then + bias[n] when bias is not NULL.
void MatmulStrided(const float* x, int64_t ldx, int64_t m, int64_t k, const uint8_t* w,
                   oxi_dtype wt, int64_t row_bytes, int64_t n, const float* bias, float* y,
                   int64_t ldy);

// True when the host reports every OXI_CPU_* bit of `bits` (after
// OXINFER_CPU_MASK): the gate in front of every VNNI / BF16 instruction.
inline bool HostHas(uint64_t bits) {
  const oxi_host_services& h = Host();
  if (!OXI_HAS_FIELD(&h, oxi_host_services, cpu_features) || h.cpu_features == nullptr) {
    return false;
  }
  return (h.cpu_features() & bits) == bits;
}

// ---- f32 / bf16 / f16 weights ----
#if OXI_KERNELS_X86
void FloatDecodeX86(const float* x, int64_t m, int64_t k, const uint8_t* w, oxi_dtype wt,
                    int64_t row_bytes, int64_t n, float* y);
void GemmX86(const float* x, int64_t m, int64_t k, const uint8_t* w, oxi_dtype wt,
             int64_t row_bytes, int64_t n, float* y);
#endif
// OXINFER_CPU_BF16_ACTIVATIONS=1 (not 0 or empty): prefill on bf16 weights may
// round the activations to bf16 (GemmBf16Dot), faster but not exact.
bool Bf16ActivationsRequested();
#if OXI_KERNELS_AVX512
// The bf16 prefill GEMM on vdpbf16ps (matmul_bf16.cc); only where
// HostHas(OXI_CPU_AVX512BF16) and Bf16ActivationsRequested().
void GemmBf16Dot(const float* x, int64_t m, int64_t k, const uint8_t* w, int64_t row_bytes,
                 int64_t n, float* y);
#endif
// Reference float matmul (the scalar and NEON builds).
void DenseRef(const float* x, int64_t m, int64_t k, const uint8_t* w, oxi_dtype wt,
              int64_t row_bytes, int64_t n, float* y);

// ---- block weights ----

// Activations quantised to Q8_0 (for Q8_0/Q4_0 weights), in the layouts the
// kernels read: natural int8, |q| and a block-pair interleaved copy (x86).
struct QuantAct {
  int64_t m = 0, k = 0, nb = 0;
  int64_t nbp = 0;              // row stride of d and nsum: nb rounded up to 8
  int8_t* qs = nullptr;         // [m][k]
  float* d = nullptr;           // [m][nbp] f16-rounded block scales, zero padded
  float* nsum = nullptr;        // [m][nbp] -8 * sum of q per block (Q4_0's offset)
  int8_t* aqs = nullptr;        // [m][k] |q| (x86, Q8_0 weights)
  int8_t* pqs = nullptr;        // [m][k] pairs interleaved by half-block (x86, Q4_0)
  int32_t* corr = nullptr;      // [m][nb/2][8]: -8*sum of q in lanes 0 and 4 (x86, Q4_0)
  int32_t* icorr = nullptr;     // [m][nbp] -8 * sum of q per block (x86, Q4_0x8)
  int32_t* icorr128 = nullptr;  // [m][nbp] -128 * sum of q per block (VNNI, Q8_0x8)
};

// In scratch slot kScratchAct of the calling thread.
QuantAct QuantizeActivations(const float* x, int64_t m, int64_t k, oxi_dtype wt);

// Integer dot of one weight block with one activation block (reference).
inline int32_t BlockDotQ8(const oxi_block_q8_0& w, const int8_t* q) {
  int32_t s = 0;
  for (int j = 0; j < OXI_QK; ++j) s += static_cast<int32_t>(w.qs[j]) * q[j];
  return s;
}
inline int32_t BlockDotQ4(const oxi_block_q4_0& w, const int8_t* q) {
  int32_t s = 0;
  for (int j = 0; j < OXI_QK / 2; ++j) {
    s += ((w.qs[j] & 0x0f) - 8) * q[j];
    s += ((w.qs[j] >> 4) - 8) * q[j + OXI_QK / 2];
  }
  return s;
}

// Decode on block weights (plain or _X8): every activation row, all n.
void QuantDecode(const QuantAct& a, const uint8_t* w, oxi_dtype wt, int64_t row_bytes, int64_t n,
                 float* y);
#if OXI_KERNELS_X86
// The _X8 kernels: decode (m <= kDecodeMaxM) and the integer prefill.
void QuantDecodeX8(const QuantAct& a, const uint8_t* w, oxi_dtype wt, int64_t row_bytes, int64_t n,
                   float* y);
void QuantGemmX8(const QuantAct& a, const uint8_t* w, oxi_dtype wt, int64_t row_bytes, int64_t n,
                 float* y);
#endif
#if OXI_KERNELS_AVX512
// The integer prefill on _X8 weights with vpdpbusd (matmul_vnni.cc); only
// where HostHas(OXI_CPU_AVX512VNNI). Needs a.icorr (Q4_0x8) or a.icorr128.
void QuantGemmX8Vnni(const QuantAct& a, const uint8_t* w, oxi_dtype wt, int64_t row_bytes,
                     int64_t n, float* y);
#endif

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_BACKENDS_CPU_MATMUL_KERNELS_H_
