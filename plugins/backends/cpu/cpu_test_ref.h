// Reference encodings for the tests, written from dtype.h's description and
// GGUF's reference quantisers, independently of the backend's code.
#ifndef OXINFER_PLUGINS_BACKENDS_CPU_CPU_TEST_REF_H_
#define OXINFER_PLUGINS_BACKENDS_CPU_CPU_TEST_REF_H_

#include <cstdint>
#include <vector>

#include "oxinfer/dtype.h"

namespace oxinfer {
namespace cpu_test {

// GGUF's quantize_row_q8_0_ref / quantize_row_q4_0_ref for one block.
oxi_block_q8_0 RefQuantQ8(const float* x);
oxi_block_q4_0 RefQuantQ4(const float* x);

// Element i of a row of plain type t, as double.
double Elem(const uint8_t* row, oxi_dtype t, int64_t i);

// [n][k] floats in plain type t (F32, BF16, F16, Q8_0, Q4_0), packed rows.
std::vector<uint8_t> Encode(const std::vector<float>& w, int64_t n, int64_t k, oxi_dtype t);

// The _X8 form of plain Q8_0 / Q4_0 rows (dtype.h).
std::vector<uint8_t> InterleaveRef(const std::vector<uint8_t>& plain, int64_t n, int64_t k,
                                   oxi_dtype p);
inline oxi_dtype X8Of(oxi_dtype t) {
  return t == OXI_DTYPE_Q8_0 ? OXI_DTYPE_Q8_0_X8 : OXI_DTYPE_Q4_0_X8;
}

}  // namespace cpu_test
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_BACKENDS_CPU_CPU_TEST_REF_H_
