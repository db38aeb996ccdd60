// local_attention against the chunked form it stands for (the Gemma 4 audio
// conformer's, computed here in double the long way: blocks of chunk_size
// queries, each with its zero-padded context of past + chunk + future keys,
// the Transformer-XL shift of the relative logits, masked logits filled with
// -1e9 after the softcap), every variant; and its refusals.
#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/backends/cpu/cpu_test_util.h"

namespace oxinfer {
namespace cpu_test {
namespace {

struct Case {
  int64_t n, heads, hd, chunk, past, future;
  float softcap;
  int64_t stride_pad;  // extra floats per row of q's view
};

// The chunked attention, [n][heads * hd].
std::vector<double> Chunked(const Case& c, const std::vector<float>& q, const std::vector<float>& k,
                            const std::vector<float>& v, const std::vector<float>& rel,
                            int64_t n_rel) {
  const int64_t w = c.heads * c.hd, ctx = c.chunk + c.past + c.future;
  const int64_t blocks = (c.n + c.chunk - 1) / c.chunk;
  std::vector<double> out(c.n * w, 0.0);
  for (int64_t h = 0; h < c.heads; ++h) {
    for (int64_t b = 0; b < blocks; ++b) {
      // The relative logits of the block's queries, padded to ctx + 1 columns.
      std::vector<double> bdp(c.chunk * (ctx + 1), 0.0);
      for (int64_t i = 0; i < c.chunk; ++i) {
        const int64_t t = b * c.chunk + i;
        if (t >= c.n) continue;
        for (int64_t r = 0; r < n_rel; ++r) {
          double s = 0;
          for (int64_t d = 0; d < c.hd; ++d) {
            s += static_cast<double>(q[t * w + h * c.hd + d]) * rel[r * w + h * c.hd + d];
          }
          bdp[i * (ctx + 1) + r] = s;
        }
      }
      for (int64_t i = 0; i < c.chunk; ++i) {
        const int64_t t = b * c.chunk + i;
        if (t >= c.n) continue;
        std::vector<double> logit(ctx);
        for (int64_t j = 0; j < ctx; ++j) {
          const int64_t s = b * c.chunk - c.past + j;
          double ac = 0;
          if (s >= 0 && s < c.n) {
            for (int64_t d = 0; d < c.hd; ++d) {
              ac += static_cast<double>(q[t * w + h * c.hd + d]) * k[s * w + h * c.hd + d];
            }
          }
          const double bd = bdp[i * ctx + j];  // the shift: row-major reread, ctx per row
          double z = ac + bd;
          if (c.softcap > 0) z = std::tanh(z / c.softcap) * c.softcap;
          const int64_t dist = t - s;
          const bool visible =
              s >= 0 && s < c.n && ((dist >= 0 && dist < c.past) || (dist < 0 && -dist < c.future));
          logit[j] = visible ? z : -1e9;
        }
        double mx = -1e300, sum = 0;
        for (double z : logit) mx = std::max(mx, z);
        for (double& z : logit) sum += (z = std::exp(z - mx));
        for (int64_t j = 0; j < ctx; ++j) {
          const int64_t s = b * c.chunk - c.past + j;
          if (s < 0 || s >= c.n) continue;
          for (int64_t d = 0; d < c.hd; ++d) {
            out[t * w + h * c.hd + d] += logit[j] / sum * v[s * w + h * c.hd + d];
          }
        }
      }
    }
  }
  return out;
}

TEST(CpuLocalAttention, MatchesTheChunkedForm) {
  const Case cases[] = {
      {30, 2, 16, 12, 12, 0, 50.0f, 0},  // the published audio config's band, 3 chunks
      {23, 3, 8, 4, 5, 0, 2.0f, 3},      // n_rel < past: far keys get no relative term
      {17, 2, 12, 3, 2, 2, 1.5f, 0},     // future context
      {1, 1, 4, 12, 12, 0, 0.0f, 0},     // one query, no softcap
      {5, 2, 8, 8, 12, 0, 50.0f, 1},     // shorter than a chunk
  };
  uint32_t seed = 40;
  for (const Case& c : cases) {
    const int64_t w = c.heads * c.hd, ctx = c.chunk + c.past + c.future, n_rel = ctx / 2 + 1;
    const std::vector<float> q = Random(c.n * w, seed++, -1.5f, 1.5f);
    const std::vector<float> k = Random(c.n * w, seed++, -1.5f, 1.5f);
    const std::vector<float> v = Random(c.n * w, seed++);
    const std::vector<float> rel = Random(n_rel * w, seed++, -1.5f, 1.5f);
    const std::vector<double> ref = Chunked(c, q, k, v, rel, n_rel);
    for (const Variant& var : Variants()) {
      SCOPED_TRACE(var.name + " n " + std::to_string(c.n) + " chunk " + std::to_string(c.chunk));
      Dev dev(var);
      auto a = Make<oxi_local_attention_args>(OXI_OP_LOCAL_ATTENTION);
      a.q = dev.F32(q, c.n, w, c.stride_pad ? w + c.stride_pad : 0);
      a.k = dev.F32(k, c.n, w);
      a.v = dev.F32(v, c.n, w);
      a.rel = dev.F32(rel, n_rel, w);
      a.out = dev.EmptyF32(c.n, w, w + 2);
      a.n_heads = static_cast<int32_t>(c.heads), a.head_dim = static_cast<int32_t>(c.hd);
      a.left = static_cast<int32_t>(c.past), a.right = static_cast<int32_t>(c.future);
      a.rel_offset = static_cast<int32_t>(c.past);
      a.scale = 1.0f, a.softcap = c.softcap;
      if (!dev.Takes(a.op)) continue;  // a partial backend leaves it to the CPU
      ASSERT_EQ(dev.Run(a.op), OXI_OK) << dev.error();
      const std::vector<float> out = dev.ReadF32(a.out);
      for (size_t i = 0; i < ref.size(); ++i) ASSERT_NEAR(out[i], ref[i], 2e-6) << i;
    }
  }
}

TEST(CpuLocalAttention, ScaleAndNoRelativeTerm) {
  const int64_t n = 9, w = 8;
  const std::vector<float> q = Random(n * w, 3), k = Random(n * w, 4), v = Random(n * w, 5);
  for (const Variant& var : Variants()) {
    SCOPED_TRACE(var.name);
    Dev dev(var);
    auto a = Make<oxi_local_attention_args>(OXI_OP_LOCAL_ATTENTION);
    a.q = dev.F32(q, n, w), a.k = dev.F32(k, n, w), a.v = dev.F32(v, n, w);
    a.out = dev.EmptyF32(n, w);
    a.n_heads = 1, a.head_dim = static_cast<int32_t>(w), a.left = 3, a.right = 0;
    a.scale = 0.5f;
    if (!dev.Takes(a.op)) continue;
    ASSERT_EQ(dev.Run(a.op), OXI_OK) << dev.error();
    const std::vector<float> out = dev.ReadF32(a.out);
    for (int64_t t = 0; t < n; ++t) {
      std::vector<double> p;
      double sum = 0;
      for (int64_t s = std::max<int64_t>(0, t - 2); s <= t; ++s) {
        double z = 0;
        for (int64_t d = 0; d < w; ++d) z += static_cast<double>(q[t * w + d]) * k[s * w + d];
        p.push_back(std::exp(0.5 * z));
        sum += p.back();
      }
      for (int64_t d = 0; d < w; ++d) {
        double o = 0;
        for (int64_t s = std::max<int64_t>(0, t - 2), j = 0; s <= t; ++s, ++j) {
          o += p[j] / sum * v[s * w + d];
        }
        ASSERT_NEAR(out[t * w + d], o, 2e-6) << t << " " << d;
      }
    }
  }
}

TEST(CpuLocalAttention, RejectsBadShapes) {
  const std::vector<float> x = Random(6 * 8, 9);
  for (const Variant& var : Variants()) {
    SCOPED_TRACE(var.name);
    Dev dev(var);
    auto a = Make<oxi_local_attention_args>(OXI_OP_LOCAL_ATTENTION);
    a.q = dev.F32(x, 6, 8), a.k = dev.F32(x, 6, 8), a.v = dev.F32(x, 6, 8);
    a.out = dev.EmptyF32(6, 8);
    a.n_heads = 3, a.head_dim = 4, a.left = 2;  // 12 columns, not 8
    dev.ExpectRejected(a.op, "n_heads * head_dim");
    a.n_heads = 2, a.left = -1;
    dev.ExpectRejected(a.op, "band sides");
    a.left = 2, a.softcap = -1.0f;
    dev.ExpectRejected(a.op, "softcap");
    a.softcap = 0.0f;
    a.k = dev.F32(std::vector<float>(x.begin(), x.begin() + 40), 5, 8);
    dev.ExpectRejected(a.op, "one row per query");
  }
}

}  // namespace
}  // namespace cpu_test
}  // namespace oxinfer
