// gated_delta (recurrent and chunked) and conv1d_causal, as the Qwen 3.5
// plugin's tests checked them (moved here with the kernels): the chunked
// form equals the recurrent one (outputs and final state) for any chunk size,
// with a carried-in state and grouped value heads; both match a naive
// double-precision recurrence; the causal conv is the same in one call or
// token by token.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/backends/cpu/cpu_test_util.h"

namespace oxinfer {
namespace cpu_test {
namespace {

struct Dims {
  int64_t nk = 2, nv = 6, dk = 16, dv = 12;
};

struct Inputs {
  int64_t n = 0;
  std::vector<float> q, k, v, g, beta, state0;
};

void L2Rows(std::vector<float>* x, int64_t dim, double scale) {
  for (size_t r = 0; r < x->size() / dim; ++r) {
    double ss = 0.0;
    for (int64_t i = 0; i < dim; ++i) ss += double((*x)[r * dim + i]) * (*x)[r * dim + i];
    for (int64_t i = 0; i < dim; ++i) {
      (*x)[r * dim + i] = static_cast<float>((*x)[r * dim + i] / std::sqrt(ss + 1e-6) * scale);
    }
  }
}

Inputs MakeInputs(const Dims& d, int64_t n, uint32_t seed) {
  Inputs in;
  in.n = n;
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::uniform_real_distribution<float> ud(0.0f, 1.0f);
  auto fill = [&](std::vector<float>& v, int64_t size) {
    v.resize(size);
    for (float& x : v) x = nd(rng);
  };
  fill(in.q, n * d.nk * d.dk);
  fill(in.k, n * d.nk * d.dk);
  fill(in.v, n * d.nv * d.dv);
  L2Rows(&in.q, d.dk, 0.25);
  L2Rows(&in.k, d.dk, 1.0);
  in.g.resize(n * d.nv);
  in.beta.resize(in.g.size());
  for (size_t i = 0; i < in.g.size(); ++i) {
    in.g[i] = -3.0f * ud(rng);
    in.beta[i] = ud(rng);
  }
  fill(in.state0, d.nv * d.dk * d.dv);
  for (float& x : in.state0) x *= 0.1f;
  return in;
}

// ops.h's recurrence, token by token, in double.
void Naive(const Dims& d, const Inputs& in, std::vector<double>* state, std::vector<double>* out) {
  state->assign(in.state0.begin(), in.state0.end());
  out->assign(in.n * d.nv * d.dv, 0.0);
  const int64_t group = d.nv / d.nk;
  for (int64_t t = 0; t < in.n; ++t) {
    for (int64_t h = 0; h < d.nv; ++h) {
      double* S = state->data() + h * d.dk * d.dv;
      const float* q = in.q.data() + (t * d.nk + h / group) * d.dk;
      const float* k = in.k.data() + (t * d.nk + h / group) * d.dk;
      const float* v = in.v.data() + (t * d.nv + h) * d.dv;
      const double decay = std::exp(double(in.g[t * d.nv + h])), b = in.beta[t * d.nv + h];
      for (int64_t i = 0; i < d.dk * d.dv; ++i) S[i] *= decay;
      for (int64_t j = 0; j < d.dv; ++j) {
        double kv = 0.0;
        for (int64_t i = 0; i < d.dk; ++i) kv += S[i * d.dv + j] * k[i];
        const double delta = (v[j] - kv) * b;
        for (int64_t i = 0; i < d.dk; ++i) S[i * d.dv + j] += k[i] * delta;
      }
      for (int64_t j = 0; j < d.dv; ++j) {
        double o = 0.0;
        for (int64_t i = 0; i < d.dk; ++i) o += S[i * d.dv + j] * q[i];
        (*out)[(t * d.nv + h) * d.dv + j] = o;
      }
    }
  }
}

// The op on one variant, q / k / v as column views of one projection.
void RunDelta(Dev& dev, const Dims& d, const Inputs& in, int32_t mode, int32_t chunk,
              std::vector<float>* state, std::vector<float>* out) {
  const int64_t n = in.n, qk = d.nk * d.dk, vw = d.nv * d.dv, w = 2 * qk + vw;
  std::vector<float> proj(n * w);
  for (int64_t t = 0; t < n; ++t) {
    std::copy(in.q.begin() + t * qk, in.q.begin() + (t + 1) * qk, proj.begin() + t * w);
    std::copy(in.k.begin() + t * qk, in.k.begin() + (t + 1) * qk, proj.begin() + t * w + qk);
    std::copy(in.v.begin() + t * vw, in.v.begin() + (t + 1) * vw, proj.begin() + t * w + 2 * qk);
  }
  const sdk::Tensor p = dev.F32(proj, n, w);
  auto a = Make<oxi_gated_delta_args>(OXI_OP_GATED_DELTA);
  a.q = p.Cols(0, qk);
  a.k = p.Cols(qk, qk);
  a.v = p.Cols(2 * qk, vw);
  a.g = dev.F32(in.g, n, d.nv, d.nv + 1);
  a.beta = dev.F32(in.beta, n, d.nv);
  a.state = dev.F32(in.state0, d.nv, d.dk * d.dv, d.dk * d.dv + 4);
  a.out = dev.EmptyF32(n, vw, vw + 2);
  a.n_k_heads = static_cast<int32_t>(d.nk);
  a.n_v_heads = static_cast<int32_t>(d.nv);
  a.k_dim = static_cast<int32_t>(d.dk);
  a.v_dim = static_cast<int32_t>(d.dv);
  a.mode = mode;
  a.chunk_size = chunk;
  ASSERT_EQ(dev.Run(a.op), OXI_OK) << dev.error();
  *state = dev.ReadF32(a.state);
  *out = dev.ReadF32(a.out);
}

template <typename A, typename B>
double MaxAbs(const A& a, const B& b) {
  double m = 0.0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(double(a[i]) - double(b[i])));
  return m;
}

TEST(CpuGatedDelta, ChunkedEqualsRecurrentAndTheNaiveRule) {
  const Dims d;
  for (const Variant& v : Variants()) {
    Dev dev(v);
    for (int64_t n : {1, 5, 63, 64, 65, 150}) {
      SCOPED_TRACE(v.name + " n " + std::to_string(n));
      const Inputs in = MakeInputs(d, n, 7 + static_cast<uint32_t>(n));
      std::vector<double> s_ref, o_ref;
      Naive(d, in, &s_ref, &o_ref);
      std::vector<float> s_rec, o_rec;
      RunDelta(dev, d, in, OXI_GATED_DELTA_RECURRENT, 0, &s_rec, &o_rec);
      EXPECT_LE(MaxAbs(o_rec, o_ref), 2e-5);
      EXPECT_LE(MaxAbs(s_rec, s_ref), 2e-5);
      for (int32_t chunk : {0, 64, 16, 5, 1}) {
        std::vector<float> s, o;
        RunDelta(dev, d, in, OXI_GATED_DELTA_CHUNKED, chunk, &s, &o);
        EXPECT_LE(MaxAbs(o, o_rec), 2e-5) << "chunk " << chunk;
        EXPECT_LE(MaxAbs(s, s_rec), 2e-5) << "chunk " << chunk;
      }
      // AUTO: recurrent for one token, chunked (of 64) for more.
      std::vector<float> s, o, s_want, o_want;
      RunDelta(dev, d, in, OXI_GATED_DELTA_AUTO, 0, &s, &o);
      RunDelta(dev, d, in, n == 1 ? OXI_GATED_DELTA_RECURRENT : OXI_GATED_DELTA_CHUNKED, 64,
               &s_want, &o_want);
      EXPECT_EQ(o, o_want);
      EXPECT_EQ(s, s_want);
    }
  }
}

TEST(CpuGatedDelta, RejectsBadShapes) {
  for (const Variant& v : Variants()) {
    Dev dev(v);
    auto a = Make<oxi_gated_delta_args>(OXI_OP_GATED_DELTA);
    a.q = a.k = dev.EmptyF32(2, 32);
    a.v = dev.EmptyF32(2, 48);
    a.g = a.beta = dev.EmptyF32(2, 3);
    a.state = dev.EmptyF32(3, 16 * 16);
    a.out = dev.EmptyF32(2, 48);
    a.n_k_heads = 2;
    a.n_v_heads = 3;
    a.k_dim = a.v_dim = 16;
    dev.ExpectRejected(a.op, "gated_delta: n_k_heads 2, n_v_heads 3");
    a.n_k_heads = 1;
    a.q = a.k = dev.EmptyF32(2, 16);
    a.state = dev.EmptyF32(3, 16 * 15);
    dev.ExpectRejected(a.op, "gated_delta: state is 3x240, not 3x256");
  }
}

// conv1d_causal on one variant: out and the new state.
void Conv(Dev& dev, const std::vector<float>& x, int64_t n, int64_t ch, const std::vector<float>& w,
          int64_t kernel, int32_t act, std::vector<float>* state, std::vector<float>* out) {
  auto a = Make<oxi_conv1d_causal_args>(OXI_OP_CONV1D_CAUSAL);
  a.x = dev.F32(x, n, ch, ch + 3);
  a.w = dev.F32(w, ch, kernel);
  a.state = dev.F32(*state, kernel - 1, ch);
  a.out = dev.EmptyF32(n, ch, ch + 1);
  a.act = act;
  ASSERT_EQ(dev.Run(a.op), OXI_OK) << dev.error();
  *state = dev.ReadF32(a.state);
  *out = dev.ReadF32(a.out);
}

TEST(CpuConv1dCausal, OneCallEqualsTokenByTokenAndTheFormula) {
  const int64_t n = 10, ch = 71, K = 4;  // channels: a block of 64 and a tail
  std::mt19937 rng(3);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::vector<float> w(ch * K), x(n * ch), st0((K - 1) * ch);
  for (float& f : w) f = nd(rng);
  for (float& f : x) f = nd(rng);
  for (float& f : st0) f = nd(rng);
  for (const Variant& v : Variants()) {
    Dev dev(v);
    for (int32_t act : {OXI_UNARY_SILU, OXI_UNARY_NONE}) {
      SCOPED_TRACE(v.name + " act " + std::to_string(act));
      std::vector<float> st1 = st0, o1;
      Conv(dev, x, n, ch, w, K, act, &st1, &o1);
      std::vector<float> st2 = st0, o2(n * ch);
      for (int64_t t = 0; t < n; ++t) {
        std::vector<float> xt(x.begin() + t * ch, x.begin() + (t + 1) * ch), ot;
        Conv(dev, xt, 1, ch, w, K, act, &st2, &ot);
        std::copy(ot.begin(), ot.end(), o2.begin() + t * ch);
      }
      EXPECT_EQ(o1, o2);
      EXPECT_EQ(st1, st2);
      // The formula, with the state's rows before x's.
      for (int64_t t = 0; t < n; ++t) {
        for (int64_t c = 0; c < ch; ++c) {
          double y = 0.0;
          for (int64_t j = 0; j < K; ++j) {
            const int64_t r = t + j;
            y += double(w[c * K + j]) * (r < K - 1 ? st0[r * ch + c] : x[(r - K + 1) * ch + c]);
          }
          if (act == OXI_UNARY_SILU) y = y / (1 + std::exp(-y));
          ASSERT_NEAR(o1[t * ch + c], y, 1e-5 * (1 + std::fabs(y))) << t << " " << c;
        }
      }
      for (int64_t j = 0; j < K - 1; ++j) {
        for (int64_t c = 0; c < ch; ++c) ASSERT_EQ(st1[j * ch + c], x[(n - K + 1 + j) * ch + c]);
      }
    }
    // Fewer new rows than the history: the state shifts.
    std::vector<float> st = st0, o;
    std::vector<float> x1(x.begin(), x.begin() + ch);
    Conv(dev, x1, 1, ch, w, K, OXI_UNARY_NONE, &st, &o);
    for (int64_t c = 0; c < ch; ++c) {
      ASSERT_EQ(st[0 * ch + c], st0[1 * ch + c]);
      ASSERT_EQ(st[1 * ch + c], st0[2 * ch + c]);
      ASSERT_EQ(st[2 * ch + c], x1[c]);
    }
  }
}

}  // namespace
}  // namespace cpu_test
}  // namespace oxinfer
