// Small dense f32 products inside an op (the delta rule's chunks, causal
// attention's query blocks): serial, row-major, no packing, so that operands
// of a few KiB stay in L1/L2 and nothing is allocated.
#ifndef OXINFER_PLUGINS_BACKENDS_CPU_SMALL_GEMM_H_
#define OXINFER_PLUGINS_BACKENDS_CPU_SMALL_GEMM_H_

#include <cstdint>

#include "plugins/backends/cpu/runtime.h"

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {

// C[m x n] = A[m x k] B[k x n] (accumulate: C +=). lower >= 0: A is zero
// beyond its band, row i has entries only in columns k < i + 1 + lower, and
// those columns are all the product reads (triangular A at half the work).
void SmallGemm(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
               int64_t ldb, float* c, int64_t ldc, bool accumulate, int64_t lower = -1);

// dst[j * ldd + i] = src[i * lds + j] for i < rows, j < cols.
void Transpose(const float* src, int64_t lds, int64_t rows, int64_t cols, float* dst, int64_t ldd);

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_BACKENDS_CPU_SMALL_GEMM_H_
