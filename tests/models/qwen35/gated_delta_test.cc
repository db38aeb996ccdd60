// The plugin's Gated DeltaNet kernels: the chunked form equals the recurrent form
// (outputs and final state), for any chunk size, with a carried-in state and
// grouped value heads; the causal conv is the same in one call or token by token.
#include "plugins/models/qwen35/gated_delta.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace oxinfer {
namespace qwen35 {
namespace {

struct Inputs {
  DeltaDims d;
  int64_t n;
  std::vector<float> q, k, v, g, beta, state0;
};

Inputs MakeInputs(int64_t n, uint32_t seed) {
  Inputs in;
  in.d = DeltaDims{2, 6, 16, 12};
  in.n = n;
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::uniform_real_distribution<float> ud(0.0f, 1.0f);
  auto fill = [&](std::vector<float>& v, int64_t size) {
    v.resize(size);
    for (float& x : v) x = nd(rng);
  };
  fill(in.q, n * in.d.num_k_heads * in.d.k_dim);
  fill(in.k, n * in.d.num_k_heads * in.d.k_dim);
  fill(in.v, n * in.d.num_v_heads * in.d.v_dim);
  L2NormRows(in.q.data(), n * in.d.num_k_heads, in.d.k_dim, 1e-6f, 0.25f);
  L2NormRows(in.k.data(), n * in.d.num_k_heads, in.d.k_dim, 1e-6f, 1.0f);
  in.g.resize(n * in.d.num_v_heads);
  in.beta.resize(in.g.size());
  for (size_t i = 0; i < in.g.size(); ++i) {
    in.g[i] = -3.0f * ud(rng);
    in.beta[i] = ud(rng);
  }
  fill(in.state0, in.d.num_v_heads * in.d.k_dim * in.d.v_dim);
  for (float& x : in.state0) x *= 0.1f;
  return in;
}

float MaxAbs(const std::vector<float>& a, const std::vector<float>& b) {
  float m = 0.0f;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(a[i] - b[i]));
  return m;
}

TEST(GatedDelta, ChunkedEqualsRecurrent) {
  for (int64_t n : {1, 5, 63, 64, 65, 150}) {
    Inputs in = MakeInputs(n, 7 + static_cast<uint32_t>(n));
    std::vector<float> s_rec = in.state0, o_rec(n * in.d.num_v_heads * in.d.v_dim);
    GatedDeltaRecurrent(nullptr, in.d, n, in.q.data(), in.k.data(), in.v.data(), in.g.data(),
                        in.beta.data(), s_rec.data(), o_rec.data());
    for (int64_t chunk : {64, 16, 5, 1}) {
      std::vector<float> s = in.state0, o(o_rec.size());
      GatedDeltaChunked(nullptr, in.d, n, chunk, in.q.data(), in.k.data(), in.v.data(), in.g.data(),
                        in.beta.data(), s.data(), o.data());
      EXPECT_LE(MaxAbs(o, o_rec), 2e-5f) << "n " << n << " chunk " << chunk;
      EXPECT_LE(MaxAbs(s, s_rec), 2e-5f) << "n " << n << " chunk " << chunk;
    }
  }
}

TEST(GatedDelta, ConvInOneCallEqualsTokenByToken) {
  const int64_t n = 10, ch = 7, K = 4;
  std::mt19937 rng(3);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::vector<float> w(ch * K), x(n * ch);
  for (float& v : w) v = nd(rng);
  for (float& v : x) v = nd(rng);
  std::vector<float> st1((K - 1) * ch, 0.0f), st2 = st1, o1(n * ch), o2(n * ch);
  CausalConv1dSilu(nullptr, n, ch, K, w.data(), st1.data(), x.data(), o1.data());
  for (int64_t t = 0; t < n; ++t) {
    CausalConv1dSilu(nullptr, 1, ch, K, w.data(), st2.data(), x.data() + t * ch, o2.data() + t * ch);
  }
  EXPECT_EQ(o1, o2);
  EXPECT_EQ(st1, st2);
  // First output: only the last tap sees real input (zero history).
  const float y = w[K - 1] * x[0];
  EXPECT_FLOAT_EQ(o1[0], y / (1.0f + std::exp(-y)));
}

}  // namespace
}  // namespace qwen35
}  // namespace oxinfer
