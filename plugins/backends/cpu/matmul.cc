// The matmul op: checks, strided views packed around the dense kernels
// (matmul_kernels.h), the bias, and the choice of kernel by size and type.
#include <cstring>

#include "plugins/backends/cpu/buffer.h"
#include "plugins/backends/cpu/matmul_kernels.h"
#include "plugins/backends/cpu/op_table.h"
#include "plugins/backends/cpu/rows.h"
#include "plugins/backends/cpu/runtime.h"
#include "plugins/backends/cpu/validate.h"

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {

void MatmulDense(const float* x, int64_t m, int64_t k, const uint8_t* w, oxi_dtype wt,
                 int64_t row_bytes, int64_t n, float* y) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    std::memset(y, 0, static_cast<size_t>(m * n) * sizeof(float));
    return;
  }
  if (IsBlockType(wt)) {
    const QuantAct a = QuantizeActivations(x, m, k, wt);
#if OXI_KERNELS_AVX512
    if (IsX8(wt) && HostHas(OXI_CPU_AVX512VNNI)) {
      // Prefill and decode on Q8_0x8 / Q4_0x8 with vpdpbusd (matmul_vnni.cc):
      // its integer dots and float steps are those of the maddubs kernels
      // (matmul_x8.cc, matmul_quant_decode.cc), so any m gives bit for bit
      // what m one-row calls give, at a fraction of their work. One-row
      // decode too: on Zen 4 it streamed Q8_0x8 1.2-1.35x faster than the
      // maddubs decode kernel (the 0.8B's head, 1 thread).
      QuantGemmX8Vnni(a, w, wt, row_bytes, n, y);
      return;
    }
#endif
#if OXI_KERNELS_X86
    if (m > kDecodeMaxM && wt == OXI_DTYPE_Q4_0_X8) {
      // Prefill on Q4_0x8: integer dot products beat dequantising to f32
      // for the GEMM (4.5 bits per weight unpack cheaply; 1.3-1.4x here).
      QuantGemmX8(a, w, wt, row_bytes, n, y);
      return;
    }
    if (m > kDecodeMaxM) {
      // Prefill: the GEMM on the dequantised activations.
      float* xf = static_cast<float*>(Scratch(kScratchActF32, m * k * sizeof(float)));
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t b = 0; b < a.nb; ++b) {
          const float d = a.d[i * a.nbp + b];
          const int8_t* q = a.qs + i * k + b * OXI_QK;
          float* o = xf + i * k + b * OXI_QK;
          for (int j = 0; j < OXI_QK; ++j) o[j] = d * static_cast<float>(q[j]);
        }
      }
      GemmX86(xf, m, k, w, wt, row_bytes, n, y);
      return;
    }
#endif
    QuantDecode(a, w, wt, row_bytes, n, y);
    return;
  }
#if OXI_KERNELS_AVX512
  if (m > kDecodeMaxM && wt == OXI_DTYPE_BF16 && HostHas(OXI_CPU_AVX512BF16) &&
      Bf16ActivationsRequested()) {
    GemmBf16Dot(x, m, k, w, row_bytes, n, y);
    return;
  }
#endif
#if OXI_KERNELS_X86
  if (m <= kDecodeMaxM) {
    FloatDecodeX86(x, m, k, w, wt, row_bytes, n, y);
  } else {
    GemmX86(x, m, k, w, wt, row_bytes, n, y);
  }
#else
  DenseRef(x, m, k, w, wt, row_bytes, n, y);
#endif
}

void MatmulStrided(const float* x, int64_t ldx, int64_t m, int64_t k, const uint8_t* w,
                   oxi_dtype wt, int64_t row_bytes, int64_t n, const float* bias, float* y,
                   int64_t ldy) {
  if (m == 0 || n == 0) return;
  // The kernels read dense activations and write dense outputs: strided
  // views are packed here (a copy, small next to the product).
  if (ldx != k && m > 1) {
    float* packed = static_cast<float*>(Scratch(kScratchPackX, m * k * sizeof(float)));
    for (int64_t i = 0; i < m; ++i) std::memcpy(packed + i * k, x + i * ldx, k * sizeof(float));
    x = packed;
  }
  const bool y_dense = ldy == n || m == 1;
  float* yd = y_dense ? y : static_cast<float*>(Scratch(kScratchPackY, m * n * sizeof(float)));
  MatmulDense(x, m, k, w, wt, row_bytes, n, yd);
  if (y_dense && bias == nullptr) return;
  for (int64_t i = 0; i < m; ++i) {
    float* yi = y + i * ldy;
    if (!y_dense) std::memcpy(yi, yd + i * n, n * sizeof(float));
    if (bias != nullptr) {
      for (int64_t j = 0; j < n; ++j) yi[j] += bias[j];
    }
  }
}

int32_t CheckMatmul(const Report& r, const oxi_op& op) {
  const auto& a = As<oxi_matmul_args>(op);
  OXI_CPU_TRY(ExpectF32(r, "x", a.x));
  OXI_CPU_TRY(ExpectF32(r, "y", a.y));
  if (!IsWeightType(TypeOf(a.w))) {
    return r.Fail(OXI_INVALID_ARGUMENT,
                  "w is %s; matmul takes f32, bf16, f16, q8_0, q4_0, q8_0x8, q4_0x8",
                  TypeName(a.w));
  }
  if (a.x.cols != a.w.cols) {
    return r.Fail(OXI_INVALID_ARGUMENT, "x has %lld columns, w has %lld",
                  static_cast<long long>(a.x.cols), static_cast<long long>(a.w.cols));
  }
  OXI_CPU_TRY(ExpectShape(r, "y", a.y, a.x.rows, a.w.rows, "x rows by w rows"));
  if (Present(a.bias)) {
    OXI_CPU_TRY(ExpectF32(r, "bias", a.bias));
    OXI_CPU_TRY(ExpectShape(r, "bias", a.bias, 1, a.w.rows, "one value per row of w"));
  }
  return OXI_OK;
}

int32_t RunMatmul(const Report&, const oxi_op& op) {
  const auto& a = As<oxi_matmul_args>(op);
  MatmulStrided(RowPtr<const float>(a.x, 0), Ld(a.x), a.x.rows, a.x.cols, Data(a.w), TypeOf(a.w),
                StrideOf(a.w), a.w.rows, Present(a.bias) ? RowPtr<const float>(a.bias, 0) : nullptr,
                RowPtr<float>(a.y, 0), Ld(a.y));
  return OXI_OK;
}

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer
