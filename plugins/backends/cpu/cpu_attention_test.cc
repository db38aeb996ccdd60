// attention against a naive double-precision implementation of ops.h's
// rules: GQA, causal and window, softcap, additive mask, bidirectional
// spans, batch parts, ring-buffer kv_pos with empty slots, absent
// positions, k = v in one wider cache row, K/V caches in f32, bf16 and f16;
// and the long non-causal GEMM path.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/backends/cpu/cpu_test_ref.h"
#include "plugins/backends/cpu/cpu_test_util.h"

namespace oxinfer {
namespace cpu_test {
namespace {

struct Case {
  std::string name;
  int64_t batch = 1, n_q = 1, n_kv = 1;
  int32_t n_heads = 1, n_kv_heads = 1, head_dim = 8, v_head_dim = 8;
  float softcap = 0.0f;
  int32_t causal = 1, window = 0;
  bool ring = false;      // kv_pos unsorted with empty (-1) slots
  bool shared = false;    // k and v in one buffer with a wider row (k = v)
  bool positions = true;  // q_pos / kv_pos given (else 0, 1, 2, ...)
  bool mask = false;      // an additive mask with some -inf
  bool spans = false;     // a bidirectional span over some slots
  bool nothing = false;   // positions no query can see
};

// Host copies of the operands, in packed rows.
struct Host {
  std::vector<float> q, k, v, mask;
  std::vector<int32_t> q_pos, kv_pos, q_span, kv_span;
  int64_t k_row = 0, v_row = 0;  // floats per k / v row (k = v: the wider row)
};

Host Inputs(const Case& c, uint32_t seed) {
  Host h;
  const int64_t kw = int64_t(c.n_kv_heads) * c.head_dim, vw = int64_t(c.n_kv_heads) * c.v_head_dim;
  h.q = Random(c.batch * c.n_q * c.n_heads * c.head_dim, seed, -2, 2);
  h.k_row = c.shared ? kw + 8 : kw;
  h.v_row = c.shared ? h.k_row : vw;
  h.k = Random(c.batch * c.n_kv * h.k_row, seed + 1, -2, 2);
  h.v = c.shared ? h.k : Random(c.batch * c.n_kv * vw, seed + 2);
  h.q_pos.resize(c.n_q);
  h.kv_pos.resize(c.n_kv);
  for (int64_t i = 0; i < c.n_kv; ++i) h.kv_pos[i] = static_cast<int32_t>(i);
  for (int64_t t = 0; t < c.n_q; ++t) h.q_pos[t] = static_cast<int32_t>(c.n_kv - c.n_q + t);
  if (c.ring) {
    // Slot i holds position 20 + (i + 5) % n_kv; two slots never written.
    for (int64_t i = 0; i < c.n_kv; ++i) h.kv_pos[i] = 20 + static_cast<int32_t>((i + 5) % c.n_kv);
    h.kv_pos[3] = -1;
    h.kv_pos[11] = -1;
    for (int64_t b = 0; b < c.batch; ++b) {  // they may hold anything: must not be read
      for (int64_t e = 0; e < kw; ++e) h.k[(b * c.n_kv + 3) * h.k_row + e] = NAN;
    }
    for (int64_t t = 0; t < c.n_q; ++t) h.q_pos[t] = 33 + static_cast<int32_t>(t);
  }
  if (c.nothing) {
    for (int64_t i = 0; i < c.n_kv; ++i) h.kv_pos[i] = 100 + static_cast<int32_t>(i);
    h.q_pos[0] = 5;
    h.q_pos[1] = 7;
    h.kv_pos[0] = 6;  // the second query sees one slot
  }
  if (c.mask) {
    h.mask = Random(c.n_q * c.n_kv, seed + 3, -3, 1);
    for (int64_t t = 0; t < c.n_q; ++t) h.mask[t * c.n_kv + (t * 7) % c.n_kv] = -INFINITY;
  }
  if (c.spans) {
    // Queries 1..3 and slots 2..6 are one image (span 4): both ways.
    h.q_span.assign(c.n_q, 0);
    h.kv_span.assign(c.n_kv, 0);
    for (int64_t t = 1; t <= 3 && t < c.n_q; ++t) h.q_span[t] = 4;
    for (int64_t i = 2; i <= 6 && i < c.n_kv; ++i) h.kv_span[i] = 4;
    for (int64_t t = 0; t < c.n_q; ++t) h.q_pos[t] = static_cast<int32_t>(t);
  }
  return h;
}

std::vector<double> Reference(const Case& c, const Host& h, float scale) {
  std::vector<double> out(c.batch * c.n_q * c.n_heads * c.v_head_dim, 0.0);
  const int group = c.n_heads / c.n_kv_heads;
  for (int64_t b = 0; b < c.batch; ++b) {
    for (int64_t t = 0; t < c.n_q; ++t) {
      const int64_t qp = c.positions ? h.q_pos[t] : t;
      for (int hh = 0; hh < c.n_heads; ++hh) {
        const int kvh = hh / group;
        std::vector<double> s(c.n_kv);
        std::vector<bool> vis(c.n_kv);
        double mx = -INFINITY;
        for (int64_t i = 0; i < c.n_kv; ++i) {
          const int64_t kp = c.positions ? h.kv_pos[i] : i;
          const bool span = c.spans && h.q_span[t] != 0 && h.q_span[t] == h.kv_span[i];
          vis[i] = kp >= 0 &&
                   (span || ((!c.causal || kp <= qp) && (c.window <= 0 || qp - kp < c.window)));
          if (c.mask && h.mask[t * c.n_kv + i] == -INFINITY) vis[i] = false;
          if (!vis[i]) continue;
          double d = 0.0;
          for (int e = 0; e < c.head_dim; ++e) {
            d += double(h.q[((b * c.n_q + t) * c.n_heads + hh) * c.head_dim + e]) *
                 h.k[(b * c.n_kv + i) * h.k_row + kvh * c.head_dim + e];
          }
          d *= scale;
          if (c.softcap > 0) d = c.softcap * std::tanh(d / c.softcap);
          if (c.mask) d += h.mask[t * c.n_kv + i];
          s[i] = d;
          mx = std::max(mx, d);
        }
        double sum = 0.0;
        for (int64_t i = 0; i < c.n_kv; ++i) sum += vis[i] ? std::exp(s[i] - mx) : 0.0;
        for (int64_t i = 0; i < c.n_kv; ++i) {
          if (!vis[i]) continue;
          const double p = std::exp(s[i] - mx) / sum;
          for (int e = 0; e < c.v_head_dim; ++e) {
            out[((b * c.n_q + t) * c.n_heads + hh) * c.v_head_dim + e] +=
                p * h.v[(b * c.n_kv + i) * h.v_row + kvh * c.v_head_dim + e];
          }
        }
      }
    }
  }
  return out;
}

// k and v held as kv_type (f32, bf16, f16): the reference sees the rounded values.
void CheckCase(const Case& c, uint32_t seed, oxi_dtype kv_type = OXI_DTYPE_F32) {
  SCOPED_TRACE(c.name + " " + oxi_dtype_name(kv_type));
  Host h = Inputs(c, seed);
  auto round = [&](std::vector<float>* v) {
    for (float& f : *v) {
      if (std::isnan(f)) continue;
      f = kv_type == OXI_DTYPE_BF16  ? oxi_bf16_to_f32(oxi_f32_to_bf16(f))
          : kv_type == OXI_DTYPE_F16 ? oxi_f16_to_f32(oxi_f32_to_f16(f))
                                     : f;
    }
  };
  round(&h.k);
  round(&h.v);
  const float scale = 1.0f / std::sqrt(float(c.head_dim));
  const std::vector<double> ref = Reference(c, h, scale);
  for (const Variant& v : Variants()) {
    SCOPED_TRACE(v.name);
    Dev dev(v);
    auto a = Make<oxi_attention_args>(OXI_OP_ATTENTION);
    const int64_t qw = int64_t(c.n_heads) * c.head_dim;
    a.q = dev.F32(h.q, c.batch * c.n_q, qw, qw + 3);
    const int64_t kw = int64_t(c.n_kv_heads) * c.head_dim,
                  vw = int64_t(c.n_kv_heads) * c.v_head_dim;
    const std::vector<uint8_t> k_rows = Encode(h.k, c.batch * c.n_kv, h.k_row, kv_type);
    const sdk::Tensor kv = dev.Upload(k_rows.data(), kv_type, c.batch * c.n_kv, h.k_row);
    a.k = kv.Cols(0, kw);
    const std::vector<uint8_t> v_rows = Encode(h.v, c.batch * c.n_kv, vw, kv_type);
    a.v = c.shared ? kv.Cols(0, vw) : dev.Upload(v_rows.data(), kv_type, c.batch * c.n_kv, vw);
    if (c.positions) {
      a.q_pos = dev.I32(h.q_pos);
      a.kv_pos = dev.I32(h.kv_pos);
    }
    if (c.mask) a.mask = dev.F32(h.mask, c.n_q, c.n_kv);
    if (c.spans) {
      a.q_span = dev.I32(h.q_span);
      a.kv_span = dev.I32(h.kv_span);
    }
    const int64_t ow = int64_t(c.n_heads) * c.v_head_dim;
    a.out = dev.EmptyF32(c.batch * c.n_q, ow, ow + 5);
    a.n_heads = c.n_heads;
    a.n_kv_heads = c.n_kv_heads;
    a.head_dim = c.head_dim;
    a.v_head_dim = c.v_head_dim;
    a.scale = scale;
    a.softcap = c.softcap;
    a.causal = c.causal;
    a.window = c.window;
    a.batch = static_cast<int32_t>(c.batch);
    ASSERT_EQ(dev.Run(a.op), OXI_OK) << dev.error();
    const std::vector<float> out = dev.ReadF32(a.out);
    for (size_t i = 0; i < out.size(); ++i) ASSERT_NEAR(out[i], ref[i], 2e-6) << i;
    if (c.nothing) {
      for (int64_t e = 0; e < ow; ++e) ASSERT_EQ(out[e], 0.0f);
    }
  }
}

TEST(CpuAttention, MatchesNaiveImplementation) {
  std::vector<Case> cases;
  auto add = [&](Case c) { cases.push_back(c); };
  add({"decode gqa", 1, 1, 37, 8, 2, 64, 64});
  add({"prefill causal", 1, 9, 9, 4, 4, 32, 32});
  add({"window softcap", 1, 7, 20, 6, 3, 16, 24, 50.0f, 1, 5});
  add({"ring buffer", 1, 3, 16, 4, 1, 40, 40, 0.0f, 1, 6, true});
  add({"k=v shared row", 1, 5, 12, 4, 2, 24, 24, 0.0f, 1, 0, false, true});
  add({"bidirectional", 1, 4, 10, 2, 2, 8, 8, 30.0f, 0});
  add({"nothing visible", 1, 2, 6, 2, 1, 8, 8, 0.0f, 1, 0, false, false, true, false, false, true});
  add({"odd dims", 1, 3, 33, 3, 1, 19, 13});
  add({"gqa group split", 1, 2, 30, 8, 1, 16, 16, 0.0f, 1, 9});
  add({"gqa uneven split", 1, 1, 25, 6, 1, 32, 32, 20.0f});
  add({"gqa prefill wide group", 1, 8, 40, 8, 1, 64, 48});
  add({"gqa group of 6 odd dims", 1, 9, 21, 12, 2, 20, 40, 0.0f, 1, 7});
  add({"gqa ring group", 1, 8, 16, 8, 1, 32, 32, 0.0f, 1, 0, true});
  add({"absent positions", 1, 6, 6, 2, 1, 8, 8, 0.0f, 1, 0, false, false, false});
  add({"mask", 1, 5, 14, 4, 2, 16, 16, 0.0f, 1, 0, false, false, true, true});
  add({"mask non-causal softcap", 1, 6, 9, 2, 2, 8, 8, 10.0f, 0, 0, false, false, true, true});
  add({"spans in a causal prefill", 1, 8, 8, 2, 1, 16, 16, 0.0f, 1, 0, false, false, true, false,
       true});
  add({"spans and window", 1, 8, 8, 2, 2, 8, 8, 0.0f, 1, 2, false, false, true, false, true});
  add({"batch of two causal", 2, 5, 7, 4, 2, 8, 8});
  add({"batch ring", 2, 3, 16, 2, 1, 8, 8, 0.0f, 1, 0, true});
  uint32_t seed = 100;
  for (oxi_dtype t : {OXI_DTYPE_F32, OXI_DTYPE_BF16, OXI_DTYPE_F16}) {
    for (const Case& c : cases) CheckCase(c, seed += 10, t);
  }
}

// Long non-causal attention, every slot visible: the GEMM path (scores by
// matmul, softmax, matmul), with heads in parallel or one after another.
TEST(CpuAttention, LongNonCausalGemmPath) {
  std::vector<Case> cases;
  Case c;
  c.causal = 0;
  c.name = "uncond+cond, 8 heads";
  c.batch = 2, c.n_q = 96, c.n_kv = 80, c.n_heads = 8, c.n_kv_heads = 8, c.head_dim = 40;
  c.v_head_dim = 40;
  c.positions = false;
  cases.push_back(c);
  c.name = "one head, wide";
  c.batch = 1, c.n_q = 130, c.n_kv = 70, c.n_heads = 1, c.n_kv_heads = 1, c.head_dim = 72;
  c.v_head_dim = 72;
  cases.push_back(c);
  c.name = "cross attention, gqa, positions given";
  c.batch = 1, c.n_q = 200, c.n_kv = 17, c.n_heads = 4, c.n_kv_heads = 2, c.head_dim = 24;
  c.v_head_dim = 16;
  c.positions = true;
  cases.push_back(c);
  uint32_t seed = 900;
  for (oxi_dtype t : {OXI_DTYPE_F32, OXI_DTYPE_BF16, OXI_DTYPE_F16}) {
    for (const Case& cc : cases) CheckCase(cc, seed += 10, t);
  }
}

// Prefills that the GEMM path declines (causal, window, softcap, mask, spans,
// ring caches): the blocked path, query blocks against slot tiles with an
// online softmax, over more than one block and tile.
TEST(CpuAttention, BlockedPrefillPath) {
  std::vector<Case> cases;
  auto add = [&](Case c) { cases.push_back(c); };
  add({"causal gqa, several tiles", 1, 70, 300, 8, 2, 64, 48});
  add({"causal, whole prompt", 1, 65, 65, 4, 4, 32, 32});
  add({"window softcap", 1, 40, 200, 6, 3, 16, 24, 30.0f, 1, 37});
  add({"ring buffer", 1, 20, 150, 4, 1, 40, 40, 0.0f, 1, 6, true});
  add({"k=v shared row", 1, 33, 140, 4, 2, 24, 24, 0.0f, 1, 0, false, true});
  add({"mask non-causal", 1, 24, 40, 2, 2, 8, 8, 0.0f, 0, 0, false, false, true, true});
  add({"spans in a causal prefill", 1, 20, 20, 2, 1, 16, 16, 0.0f, 1, 0, false, false, true, false,
       true});
  add({"absent positions", 1, 33, 33, 2, 1, 8, 8, 0.0f, 1, 0, false, false, false});
  add({"batch of two causal", 2, 17, 150, 4, 2, 8, 8});
  add({"odd dims", 1, 19, 133, 3, 1, 19, 13});
  uint32_t seed = 1300;
  for (oxi_dtype t : {OXI_DTYPE_F32, OXI_DTYPE_BF16, OXI_DTYPE_F16}) {
    for (const Case& c : cases) CheckCase(c, seed += 10, t);
  }
}

TEST(CpuAttention, RejectsBadShapes) {
  for (const Variant& v : Variants()) {
    SCOPED_TRACE(v.name);
    Dev dev(v);
    auto a = Make<oxi_attention_args>(OXI_OP_ATTENTION);
    a.q = dev.EmptyF32(2, 12);
    a.k = dev.EmptyF32(4, 8);
    a.v = dev.EmptyF32(4, 8);
    a.out = dev.EmptyF32(2, 12);
    a.n_heads = 3;
    a.n_kv_heads = 2;
    a.head_dim = a.v_head_dim = 4;
    dev.ExpectRejected(a.op, "attention: n_heads 3, n_kv_heads 2");
    a.n_heads = 2;
    a.n_kv_heads = 2;
    a.q.cols = a.out.cols = 8;
    a.mask = dev.EmptyF32(2, 5);
    dev.ExpectRejected(a.op, "attention: mask is 2x5, not 2x4");
    a.mask = sdk::Tensor();
    a.batch = 3;
    dev.ExpectRejected(a.op, "batch 3 does not divide");
  }
}

}  // namespace
}  // namespace cpu_test
}  // namespace oxinfer
