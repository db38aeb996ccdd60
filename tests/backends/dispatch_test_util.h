// What the dispatcher's tests share: the test backends, host data, and
// reading tensors back.
#ifndef OXINFER_TESTS_BACKENDS_DISPATCH_TEST_UTIL_H_
#define OXINFER_TESTS_BACKENDS_DISPATCH_TEST_UTIL_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "oxinfer/backend_abi.h"
#include "oxinfer/sdk/compute.hpp"
#include "tests/support/scoped_env.h"

namespace oxinfer {
namespace testing {

// The plugins of this package, loaded through the registry once.
const oxi_backend_iface* ArenaBackend();
const oxi_backend_iface* PlainCpuBackend();
std::string ArenaPath();
std::string PlainCpuPath();

std::vector<float> RandomFloats(size_t n, uint32_t seed, float scale = 1.0f);

// A tensor's elements as f32 (F32 / BF16 / F16), in row order.
std::vector<float> ReadFloats(const sdk::Compute& cx, const sdk::Tensor& t);

// Host f32 values as a packed tensor of `dtype` (F32, BF16, F16 or Q8_0)
// in a new buffer.
sdk::StatusOr<sdk::OwnedTensor> UploadAs(const sdk::Compute& cx, const std::vector<float>& v,
                                         int64_t rows, int64_t cols, oxi_dtype dtype);

// max |a - b| / max(max |b|, 1e-6); infinity when the sizes differ or one
// has a NaN where the other does not.
double MaxRelativeError(const std::vector<float>& a, const std::vector<float>& b);

// Whether two float vectors hold the same bits.
bool SameBits(const std::vector<float>& a, const std::vector<float>& b);

// An error status's message, or "OK".
std::string MessageOf(const sdk::Status& s);

}  // namespace testing
}  // namespace oxinfer

#endif  // OXINFER_TESTS_BACKENDS_DISPATCH_TEST_UTIL_H_
