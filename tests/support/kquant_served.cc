#include "tests/support/kquant_served.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <utility>

#include "core/gguf/dequantize.h"
#include "gtest/gtest.h"
#include "oxinfer/sdk/weights.hpp"
#include "tests/support/scoped_env.h"

namespace oxinfer {
namespace testing {

std::vector<float> ServedValues(const oxi_weight_tensor& t) {
  int64_t n = 1;
  for (int i = 0; i < t.ndim; ++i) n *= t.shape[i];
  std::vector<float> v(static_cast<size_t>(n));
  if (t.dtype == OXI_DTYPE_Q8_0 || t.dtype == OXI_DTYPE_Q4_0) {
    const auto type = t.dtype == OXI_DTYPE_Q8_0 ? gguf::TensorType::kQ8_0 : gguf::TensorType::kQ4_0;
    EXPECT_TRUE(gguf::Dequantize(type, t.data, n, v.data()).ok());
  } else {
    for (int64_t i = 0; i < n; ++i) v[i] = sdk::LoadFloat(t.data, t.dtype, i);
  }
  return v;
}

double RelativeL2(const float* a, const float* b, int64_t n) {
  double num = 0, den = 0;
  for (int64_t i = 0; i < n; ++i) {
    num += (a[i] - b[i]) * static_cast<double>(a[i] - b[i]);
    den += b[i] * static_cast<double>(b[i]);
  }
  return std::sqrt(num / den);
}

int ExpectKQuantsServedAsQ8_0(const std::string& dir, const oxi_host_services* host) {
  auto q8 = sdk::Weights::Open(dir, true, host);
  EXPECT_TRUE(q8.ok()) << dir;
  std::optional<sdk::Weights> f32;
  {
    ScopedEnv exact("OXINFER_GGUF_KQUANT", "f32");
    auto w = sdk::Weights::Open(dir, true, host);
    EXPECT_TRUE(w.ok()) << dir;
    if (!q8.ok() || !w.ok()) return 0;
    f32.emplace(*std::move(w));
  }
  int requantised = 0;
  for (int64_t i = 0; i < q8->size(); ++i) {
    const oxi_weight_tensor& t = q8->tensor(i);
    const oxi_weight_tensor* e = f32->Find(t.name);
    EXPECT_NE(e, nullptr) << t.name;
    if (e == nullptr) continue;
    const std::vector<float> a = ServedValues(t), b = ServedValues(*e);
    EXPECT_EQ(a.size(), b.size()) << t.name;
    if (a.size() != b.size()) continue;
    if (t.dtype == e->dtype) {
      EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0) << t.name;
      continue;
    }
    EXPECT_EQ(t.dtype, OXI_DTYPE_Q8_0) << t.name;
    EXPECT_EQ(e->dtype, OXI_DTYPE_F32) << t.name;
    ++requantised;
    for (size_t b0 = 0; b0 + 32 <= a.size(); b0 += 32) {
      float amax = 0, worst = 0;
      for (size_t j = b0; j < b0 + 32; ++j) {
        amax = std::max(amax, std::fabs(b[j]));
        worst = std::max(worst, std::fabs(a[j] - b[j]));
      }
      // Half a step of amax / 127, and the f16 scale's rounding (127 * 2^-11 steps).
      EXPECT_LE(worst, amax / 127.0f * 0.57f) << t.name << " block " << b0 / 32;
      if (worst > amax / 127.0f * 0.57f) break;
    }
  }
  return requantised;
}

}  // namespace testing
}  // namespace oxinfer
