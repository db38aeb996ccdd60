// A sequence of ops of the kind a model runs, mixing what the arena backend
// supports (matmul on float weights, rms_norm) with what only the CPU does
// (quantised matmul, unary, binary, set_rows, softmax), on activations carved
// from one scratch buffer, strided views, in-place ops, a partly written
// cache and a wrapped host weight. Returns the outputs, read back.
#ifndef OXINFER_TESTS_BACKENDS_MIXED_PROGRAM_H_
#define OXINFER_TESTS_BACKENDS_MIXED_PROGRAM_H_

#include <vector>

#include "oxinfer/sdk/compute.hpp"

namespace oxinfer {
namespace testing {

sdk::StatusOr<std::vector<std::vector<float>>> RunMixedProgram(const sdk::Compute& cx);

}  // namespace testing
}  // namespace oxinfer

#endif  // OXINFER_TESTS_BACKENDS_MIXED_PROGRAM_H_
