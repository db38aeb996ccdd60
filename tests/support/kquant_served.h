// What core/gguf serves for a GGUF file's K-quant matrices by default (Q8_0
// requantisations, gguf_mapping.h's KQuantPolicy) against what it serves with
// OXINFER_GGUF_KQUANT=f32 (their exact values), for both models' tests.
#ifndef OXINFER_TESTS_SUPPORT_KQUANT_SERVED_H_
#define OXINFER_TESTS_SUPPORT_KQUANT_SERVED_H_

#include <cstdint>
#include <string>
#include <vector>

#include "oxinfer/abi_common.h"

namespace oxinfer {
namespace testing {

// A served tensor's values as float32 (Q8_0 / Q4_0 blocks dequantised).
std::vector<float> ServedValues(const oxi_weight_tensor& t);

// |a - b| / |b| (L2) of two n-vectors: how far the requantised model's
// logits lie from the exact run's.
double RelativeL2(const float* a, const float* b, int64_t n);

// Opens the staged folder `dir` both ways and checks, with gtest
// expectations, that every tensor is the same but for matrices served as
// Q8_0 by default and as F32 exactly, each block of which lies within half a
// Q8_0 step (plus the f16 scale's rounding) of the exact values. Returns how
// many matrices were requantised.
int ExpectKQuantsServedAsQ8_0(const std::string& dir, const oxi_host_services* host);

}  // namespace testing
}  // namespace oxinfer

#endif  // OXINFER_TESTS_SUPPORT_KQUANT_SERVED_H_
