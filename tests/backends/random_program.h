// Random op sequences for the dispatcher's tests: runs of several ops per
// execute call, over views of a few shared buffers (row ranges, strided
// column ranges, in place), with writes and copies in between. The same seed
// gives the same program on any backend, so compositions can be compared
// with the CPU alone.
#ifndef OXINFER_TESTS_BACKENDS_RANDOM_PROGRAM_H_
#define OXINFER_TESTS_BACKENDS_RANDOM_PROGRAM_H_

#include <cstdint>
#include <vector>

#include "oxinfer/sdk/compute.hpp"

namespace oxinfer {
namespace testing {

constexpr int kRandomProgramBuffers = 4;

// The final contents of the program's buffers after `steps` random steps.
sdk::StatusOr<std::vector<std::vector<float>>> RunRandomProgram(const oxi_backend_iface* be,
                                                                uint32_t seed, int steps);

}  // namespace testing
}  // namespace oxinfer

#endif  // OXINFER_TESTS_BACKENDS_RANDOM_PROGRAM_H_
