#include "tests/backends/dispatch_test_util.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tests/backends/plain_kernels.h"
#include "tests/support/test_backends.h"

namespace oxinfer {
namespace testing {
namespace {

const oxi_backend_iface* Load(const std::string& path) {
  auto iface = LoadPluginIface(path, OXI_PLUGIN_BACKEND);
  if (!iface.ok()) {
    std::fprintf(stderr, "%s\n", std::string(iface.status().message()).c_str());
    std::abort();
  }
  return static_cast<const oxi_backend_iface*>(*iface);
}

}  // namespace

std::string ArenaPath() { return Runfile("tests/backends/liboxinfer_arena.so"); }
std::string PlainCpuPath() { return Runfile("tests/backends/liboxinfer_plain_cpu.so"); }
const oxi_backend_iface* ArenaBackend() { return Load(ArenaPath()); }
const oxi_backend_iface* PlainCpuBackend() { return Load(PlainCpuPath()); }

std::vector<float> RandomFloats(size_t n, uint32_t seed, float scale) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-scale, scale);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

std::vector<float> ReadFloats(const sdk::Compute& cx, const sdk::Tensor& t) {
  std::vector<uint8_t> bytes(static_cast<size_t>(t.row_bytes() * t.rows));
  if (!cx.Read(t, bytes.data()).ok()) return {};
  std::vector<float> out(static_cast<size_t>(t.numel()));
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = test_backends::Element(t.dtype, bytes.data(), static_cast<int64_t>(i));
  }
  return out;
}

sdk::StatusOr<sdk::OwnedTensor> UploadAs(const sdk::Compute& cx, const std::vector<float>& v,
                                         int64_t rows, int64_t cols, oxi_dtype dtype) {
  std::vector<uint8_t> bytes(static_cast<size_t>(oxi_dtype_row_bytes(dtype, cols) * rows));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const float x = v[static_cast<size_t>(r * cols + c)];
      const size_t i = static_cast<size_t>(r * cols + c);
      if (dtype == OXI_DTYPE_F32) {
        std::memcpy(bytes.data() + 4 * i, &x, 4);
      } else if (dtype == OXI_DTYPE_BF16 || dtype == OXI_DTYPE_F16) {
        const uint16_t h = dtype == OXI_DTYPE_BF16 ? oxi_f32_to_bf16(x) : oxi_f32_to_f16(x);
        std::memcpy(bytes.data() + 2 * i, &h, 2);
      }
    }
    if (dtype == OXI_DTYPE_Q8_0) {
      for (int64_t b = 0; b < cols / OXI_QK; ++b) {
        oxi_block_q8_0 block;
        float amax = 0.0f;
        const float* src = v.data() + r * cols + b * OXI_QK;
        for (int j = 0; j < OXI_QK; ++j) amax = std::max(amax, std::fabs(src[j]));
        const float d = amax / 127.0f;
        block.d = oxi_f32_to_f16(d);
        for (int j = 0; j < OXI_QK; ++j) {
          block.qs[j] = static_cast<int8_t>(d > 0 ? std::lround(src[j] / d) : 0);
        }
        std::memcpy(bytes.data() + (r * (cols / OXI_QK) + b) * sizeof block, &block, sizeof block);
      }
    }
  }
  return cx.Upload(bytes.data(), dtype, rows, cols);
}

double MaxRelativeError(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return INFINITY;
  double diff = 0.0, ref = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) != std::isnan(b[i])) return INFINITY;
    if (std::isnan(a[i])) continue;
    diff = std::max(diff, std::fabs(static_cast<double>(a[i]) - b[i]));
    ref = std::max(ref, std::fabs(static_cast<double>(b[i])));
  }
  return diff / std::max(ref, 1e-6);
}

bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

std::string MessageOf(const sdk::Status& s) { return s.ok() ? "OK" : s.message(); }

}  // namespace testing
}  // namespace oxinfer
