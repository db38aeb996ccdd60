// matmul on every weight type and layout, against a double-precision
// reference from the encoded weights, on every variant (and each SIMD
// variant against the scalar one): decode and prefill sizes, tails, strided
// views, bias.
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/cpu_features.h"
#include "gtest/gtest.h"
#include "oxinfer/plugin_abi.h"
#include "plugins/backends/cpu/cpu_test_ref.h"
#include "plugins/backends/cpu/cpu_test_util.h"

namespace oxinfer {
namespace cpu_test {
namespace {

struct Case {
  int64_t m, k, n;
};

// y[i][j] in double from the encoded plain weights; Q8_0/Q4_0 use the
// activations quantised to Q8_0 (the op's documented semantics). mag: the
// sum of |x||w| per output, for the tolerance.
void Reference(const std::vector<float>& x, const std::vector<uint8_t>& w, oxi_dtype t,
               const Case& c, const std::vector<float>& bias, std::vector<double>* y,
               std::vector<double>* mag) {
  const int64_t rb = oxi_dtype_row_bytes(t, c.k);
  std::vector<double> xd(x.begin(), x.end());
  if (t == OXI_DTYPE_Q8_0 || t == OXI_DTYPE_Q4_0) {
    for (int64_t i = 0; i < c.m; ++i) {
      for (int64_t b = 0; b < c.k / OXI_QK; ++b) {
        const oxi_block_q8_0 q = RefQuantQ8(x.data() + i * c.k + b * OXI_QK);
        for (int j = 0; j < OXI_QK; ++j) {
          xd[i * c.k + b * OXI_QK + j] = static_cast<double>(oxi_f16_to_f32(q.d)) * q.qs[j];
        }
      }
    }
  }
  y->assign(c.m * c.n, 0.0);
  mag->assign(c.m * c.n, 0.0);
  std::vector<double> wrow(c.k);
  for (int64_t j = 0; j < c.n; ++j) {
    for (int64_t p = 0; p < c.k; ++p) wrow[p] = Elem(w.data() + j * rb, t, p);
    for (int64_t i = 0; i < c.m; ++i) {
      double s = bias.empty() ? 0.0 : bias[j], a = bias.empty() ? 0.0 : std::fabs(bias[j]);
      for (int64_t p = 0; p < c.k; ++p) {
        s += xd[i * c.k + p] * wrow[p];
        a += std::fabs(xd[i * c.k + p] * wrow[p]);
      }
      (*y)[i * c.n + j] = s;
      (*mag)[i * c.n + j] = a;
    }
  }
}

struct Layout {
  int64_t x_pad = 0, w_pad = 0, y_pad = 0;  // extra elements (bytes for w) per row
  bool bias = false;
};

// The op on one variant: y as packed rows; *skipped when the variant is a
// partial backend that leaves this op to the CPU.
std::vector<float> Run(Dev& dev, const std::vector<float>& x, const std::vector<uint8_t>& w,
                       oxi_dtype t, const Case& c, const Layout& l, const std::vector<float>& b,
                       bool* skipped) {
  auto a = Make<oxi_matmul_args>(OXI_OP_MATMUL);
  a.x = dev.F32(x, c.m, c.k, l.x_pad ? c.k + l.x_pad : 0);
  const int64_t rb = oxi_dtype_row_bytes(t, c.k);
  a.w = dev.Upload(w.data(), t, c.n, c.k, l.w_pad ? rb + l.w_pad : 0);
  if (l.bias) a.bias = dev.F32(b, 1, c.n);
  a.y = dev.EmptyF32(c.m, c.n, l.y_pad ? c.n + l.y_pad : 0);
  *skipped = !dev.Takes(a.op);
  if (*skipped) return {};
  EXPECT_EQ(dev.Run(a.op), OXI_OK) << dev.error();
  return dev.ReadF32(a.y);
}

// Runs the case on every variant and checks each against the reference and
// the scalar variant. `stored` is how the weights are held (plain or _X8),
// `plain` their plain rows for the reference.
void Check(const Case& c, oxi_dtype t, oxi_dtype stored, const std::vector<float>& x,
           const std::vector<uint8_t>& plain, const std::vector<uint8_t>& w, const Layout& l,
           uint32_t seed) {
  const std::vector<float> bias = l.bias ? Random(c.n, seed + 7) : std::vector<float>();
  std::vector<double> ref, mag;
  Reference(x, plain, t, c, bias, &ref, &mag);
  std::vector<float> scalar;
  const double rel = 2e-6 * std::sqrt(static_cast<double>(c.k)) + 1e-6;
  for (const Variant& v : Variants()) {
    SCOPED_TRACE(v.name);
    Dev dev(v);
    bool skipped = false;
    const std::vector<float> y = Run(dev, x, w, stored, c, l, bias, &skipped);
    if (skipped) continue;
    if (scalar.empty()) scalar = y;  // the first variant is the scalar reference build
    for (int64_t i = 0; i < c.m * c.n; ++i) {
      const double tol = rel * mag[i] + 1e-30;
      ASSERT_NEAR(y[i], ref[i], tol) << "at " << i;
      ASSERT_NEAR(y[i], scalar[i], 2 * tol) << "vs " << Variants()[0].name << " at " << i;
    }
  }
}

const oxi_dtype kPlainTypes[] = {OXI_DTYPE_F32, OXI_DTYPE_BF16, OXI_DTYPE_F16, OXI_DTYPE_Q8_0,
                                 OXI_DTYPE_Q4_0};

std::string Name(oxi_dtype t, const Case& c) {
  return std::string(oxi_dtype_name(t)) + " m=" + std::to_string(c.m) +
         " k=" + std::to_string(c.k) + " n=" + std::to_string(c.n);
}

TEST(CpuMatmul, EveryPlainTypeDecodeAndPrefill) {
  ASSERT_EQ(Variants()[0].name, "cpu-scalar");
  uint32_t seed = 1;
  for (oxi_dtype t : kPlainTypes) {
    const bool quant = t == OXI_DTYPE_Q8_0 || t == OXI_DTYPE_Q4_0;
    const std::vector<int64_t> ks = quant ? std::vector<int64_t>{32, 96, 160, 544, 1056}
                                          : std::vector<int64_t>{1, 7, 33, 100, 257, 544};
    std::vector<Case> cases;
    for (int64_t m : {1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 37}) {
      for (int64_t n : {1, 3, 17, 50}) cases.push_back({m, ks[(m + n) % ks.size()], n});
    }
    cases.push_back({1, quant ? 4096 : 4100, 67});
    cases.push_back({37, quant ? 640 : 600, 53});
    cases.push_back({64, 256, 72});
    for (const Case& c : cases) {
      SCOPED_TRACE(Name(t, c));
      const std::vector<float> x = Random(c.m * c.k, seed++, -2.0f, 2.0f);
      const std::vector<uint8_t> w = Encode(Random(c.n * c.k, seed++), c.n, c.k, t);
      Check(c, t, t, x, w, w, Layout(), seed);
    }
  }
}

TEST(CpuMatmul, InterleavedX8) {
  // m > 8 on Q4_0x8 is the integer prefill: 64-row blocks, 4 rows per pass,
  // tails of 1-3 (11 = 8 + 3, 70 = 64 + 4 + 2).
  uint32_t seed = 100;
  const int64_t ks[] = {32, 96, 160, 544, 4096};
  for (oxi_dtype p : {OXI_DTYPE_Q8_0, OXI_DTYPE_Q4_0}) {
    int which = 0;
    for (int64_t m : {1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 13, 37, 70}) {
      for (int64_t n : {8, 16, 56}) {
        const Case c{m, ks[which++ % 5], n};
        SCOPED_TRACE(Name(X8Of(p), c));
        const std::vector<float> x = Random(c.m * c.k, seed++, -2.0f, 2.0f);
        const std::vector<uint8_t> w = Encode(Random(c.n * c.k, seed++), c.n, c.k, p);
        Check(c, p, X8Of(p), x, w, InterleaveRef(w, c.n, c.k, p), Layout(), seed);
      }
    }
  }
}

TEST(CpuMatmul, DecodeRowsEqualSingleRowsBitForBit) {
  // Speculative verification feeds k tokens in one forward and must give
  // exactly what k one-token steps give: every decode size (m <= 8) of every
  // weight type and layout, on every variant, equals its rows run one by one.
  uint32_t seed = 300;
  struct Storage {
    oxi_dtype plain, stored;
  };
  const Storage kStorages[] = {
      {OXI_DTYPE_F32, OXI_DTYPE_F32},        {OXI_DTYPE_BF16, OXI_DTYPE_BF16},
      {OXI_DTYPE_F16, OXI_DTYPE_F16},        {OXI_DTYPE_Q8_0, OXI_DTYPE_Q8_0},
      {OXI_DTYPE_Q4_0, OXI_DTYPE_Q4_0},      {OXI_DTYPE_Q8_0, X8Of(OXI_DTYPE_Q8_0)},
      {OXI_DTYPE_Q4_0, X8Of(OXI_DTYPE_Q4_0)}};
  for (const Storage& st : kStorages) {
    const bool x8 = st.stored != st.plain;
    const int64_t k = 1056, n = x8 ? 72 : 67;  // tails after full tiles and vector steps
    const std::vector<uint8_t> plain = Encode(Random(n * k, seed++), n, k, st.plain);
    const std::vector<uint8_t> w = x8 ? InterleaveRef(plain, n, k, st.plain) : plain;
    for (const Variant& v : Variants()) {
      Dev dev(v);
      for (int64_t m = 2; m <= 8; ++m) {
        SCOPED_TRACE(v.name + " " + Name(st.stored, Case{m, k, n}));
        const std::vector<float> x = Random(m * k, seed++, -2.0f, 2.0f);
        bool skipped = false;
        const std::vector<float> all = cpu_test::Run(dev, x, w, st.stored, Case{m, k, n}, Layout(),
                                                     std::vector<float>(), &skipped);
        if (skipped) break;
        for (int64_t i = 0; i < m; ++i) {
          const std::vector<float> xi(x.begin() + i * k, x.begin() + (i + 1) * k);
          const std::vector<float> one = cpu_test::Run(dev, xi, w, st.stored, Case{1, k, n},
                                                       Layout(), std::vector<float>(), &skipped);
          for (int64_t j = 0; j < n; ++j) {
            ASSERT_EQ(all[i * n + j], one[j]) << "row " << i << " column " << j;
          }
        }
      }
    }
  }
}

TEST(CpuMatmul, X8VariantsAgreeBitForBit) {
  // cpu-avx512 runs every Q8_0x8 / Q4_0x8 matmul (decode and prefill) on
  // vpdpbusd where the CPU has VNNI, the other x86 variants on maddubs; the
  // integer dots and the float steps are the same, so decode must not depend
  // on which variant the registry picked. (Prefill too on Q4_0x8; Q8_0x8's
  // prefill on AVX2 is a float GEMM on the dequantised activations.)
  uint32_t seed = 900;
  const Variant* base = nullptr;
  for (const Variant& v : Variants()) {
    if (v.name == "cpu-avx2") base = &v;
  }
  if (base == nullptr) GTEST_SKIP() << "no cpu-avx2 on this CPU";
  for (oxi_dtype p : {OXI_DTYPE_Q8_0, OXI_DTYPE_Q4_0}) {
    const int64_t k = 1056, n = 72;
    const std::vector<uint8_t> w = InterleaveRef(Encode(Random(n * k, seed++), n, k, p), n, k, p);
    for (int64_t m : {1, 2, 4, 5, 8, 9, 70}) {
      if (m > 8 && p == OXI_DTYPE_Q8_0) continue;
      const Case c{m, k, n};
      const std::vector<float> x = Random(m * k, seed++, -2.0f, 2.0f);
      Dev ref_dev(*base);
      bool skipped = false;
      const std::vector<float> ref =
          cpu_test::Run(ref_dev, x, w, X8Of(p), c, Layout(), std::vector<float>(), &skipped);
      if (skipped) continue;
      for (const Variant& v : Variants()) {
        if (v.name == "cpu-scalar" || &v == base) continue;
        SCOPED_TRACE(v.name + " " + Name(X8Of(p), c));
        Dev dev(v);
        const std::vector<float> got =
            cpu_test::Run(dev, x, w, X8Of(p), c, Layout(), std::vector<float>(), &skipped);
        if (skipped) continue;
        for (int64_t e = 0; e < m * n; ++e) ASSERT_EQ(got[e], ref[e]) << "element " << e;
      }
    }
  }
}

TEST(CpuMatmul, InterleavedX8PrefillTiles) {
  // The integer prefill's tiles on every variant: with VNNI (cpu-avx512)
  // 8-row tiles on pairs of groups, a lone last group (n/8 odd), row tails
  // 1-7 after full tiles, and 64-row blocks (63, 64, 65, 135).
  uint32_t seed = 300;
  const int64_t ks[] = {32, 64, 96, 1056};
  for (oxi_dtype p : {OXI_DTYPE_Q8_0, OXI_DTYPE_Q4_0}) {
    int which = 0;
    for (int64_t m : {9, 10, 12, 14, 15, 16, 17, 23, 63, 64, 65, 135}) {
      for (int64_t n : {8, 24, 32, 40}) {
        const Case c{m, ks[which++ % 4], n};
        SCOPED_TRACE(Name(X8Of(p), c));
        const std::vector<float> x = Random(c.m * c.k, seed++, -2.0f, 2.0f);
        const std::vector<uint8_t> w = Encode(Random(c.n * c.k, seed++), c.n, c.k, p);
        Check(c, p, X8Of(p), x, w, InterleaveRef(w, c.n, c.k, p), Layout(), seed);
      }
    }
  }
  // Extremes: every weight and activation at +-max (q = +-127, nibbles 0 and
  // 15), where w + 128 and the corrections reach their largest values.
  for (oxi_dtype p : {OXI_DTYPE_Q8_0, OXI_DTYPE_Q4_0}) {
    const Case c{19, 4096, 24};
    SCOPED_TRACE(Name(X8Of(p), c) + " extremes");
    std::vector<float> x(c.m * c.k), wf(c.n * c.k);
    for (size_t i = 0; i < x.size(); ++i) x[i] = (i * 7 % 3 == 0) ? -1.0f : 1.0f;
    for (size_t i = 0; i < wf.size(); ++i) wf[i] = (i * 5 % 3 == 1) ? -1.0f : 1.0f;
    const std::vector<uint8_t> w = Encode(wf, c.n, c.k, p);
    Check(c, p, X8Of(p), x, w, InterleaveRef(w, c.n, c.k, p), Layout(), seed);
  }
}

TEST(CpuMatmul, Bf16ActivationsOption) {
  // OXINFER_CPU_BF16_ACTIVATIONS=1: cpu-avx512 on a CPU with AVX512_BF16 runs
  // bf16 prefill on vdpbf16ps with the activations rounded to bf16, checked
  // tightly against the reference on those rounded activations (so the
  // option cannot silently fall back); every other variant stays exact.
  ::setenv("OXINFER_CPU_BF16_ACTIVATIONS", "1", 1);
  const bool bf16_dot = (CpuFeatures() & OXI_CPU_AVX512BF16) != 0;
  uint32_t seed = 700;
  const int64_t ks[] = {1, 2, 31, 32, 255, 256, 257, 1000};
  int which = 0;
  for (int64_t m : {9, 12, 13, 24, 25, 37}) {
    for (int64_t n : {1, 16, 17, 32, 33, 130, 300}) {
      const Case c{m, ks[which++ % 8], n};
      SCOPED_TRACE(Name(OXI_DTYPE_BF16, c) + " bf16 activations");
      const std::vector<float> x = Random(c.m * c.k, seed++, -2.0f, 2.0f);
      const std::vector<uint8_t> w = Encode(Random(c.n * c.k, seed++), c.n, c.k, OXI_DTYPE_BF16);
      std::vector<float> xr(x.size());
      for (size_t i = 0; i < x.size(); ++i) xr[i] = oxi_bf16_to_f32(oxi_f32_to_bf16(x[i]));
      std::vector<double> exact, rounded, mag, mag_r;
      Reference(x, w, OXI_DTYPE_BF16, c, {}, &exact, &mag);
      Reference(xr, w, OXI_DTYPE_BF16, c, {}, &rounded, &mag_r);
      const double rel = 2e-6 * std::sqrt(static_cast<double>(c.k)) + 1e-6;
      for (const Variant& v : Variants()) {
        SCOPED_TRACE(v.name);
        Dev dev(v);
        bool skipped = false;
        const std::vector<float> y =
            cpu_test::Run(dev, x, w, OXI_DTYPE_BF16, c, Layout(), {}, &skipped);
        if (skipped) continue;
        const bool fast = bf16_dot && v.name == "cpu-avx512";
        const std::vector<double>& ref = fast ? rounded : exact;
        for (int64_t i = 0; i < c.m * c.n; ++i) {
          ASSERT_NEAR(y[i], ref[i], rel * mag[i] + 1e-30) << "at " << i;
        }
      }
    }
  }
  ::unsetenv("OXINFER_CPU_BF16_ACTIVATIONS");
}

TEST(CpuMatmul, StridedViewsAndBias) {
  uint32_t seed = 500;
  for (oxi_dtype t : {OXI_DTYPE_F32, OXI_DTYPE_BF16, OXI_DTYPE_F16, OXI_DTYPE_Q8_0, OXI_DTYPE_Q4_0,
                      OXI_DTYPE_Q8_0_X8, OXI_DTYPE_Q4_0_X8}) {
    const oxi_dtype p = oxi_dtype_plain(t);
    for (const Case& c : {Case{1, 96, 24}, Case{3, 160, 16}, Case{9, 64, 40}, Case{37, 256, 48}}) {
      for (int variant = 0; variant < 3; ++variant) {
        Layout l;
        l.bias = variant != 1;
        l.x_pad = variant == 0 ? 5 : 64;
        l.y_pad = variant == 2 ? 0 : 3;
        l.w_pad = oxi_dtype_is_x8(t) ? 0 : 4 * (variant + 1);  // element-aligned
        SCOPED_TRACE(Name(t, c) + " layout " + std::to_string(variant));
        const std::vector<float> x = Random(c.m * c.k, seed++, -2.0f, 2.0f);
        const std::vector<uint8_t> w = Encode(Random(c.n * c.k, seed++), c.n, c.k, p);
        const std::vector<uint8_t> stored = oxi_dtype_is_x8(t) ? InterleaveRef(w, c.n, c.k, p) : w;
        Check(c, p, t, x, w, stored, l, seed);
      }
    }
  }
}

TEST(CpuMatmul, EmptyShapes) {
  for (const Variant& v : Variants()) {
    SCOPED_TRACE(v.name);
    Dev dev(v);
    // k = 0: y is the bias (or zeros); m = 0 or n = 0: nothing to do.
    auto a = Make<oxi_matmul_args>(OXI_OP_MATMUL);
    a.x = dev.EmptyF32(2, 0);
    a.w = dev.Empty(OXI_DTYPE_BF16, 3, 0);
    a.bias = dev.F32({1, 2, 3}, 1, 3);
    a.y = dev.EmptyF32(2, 3);
    ASSERT_EQ(dev.Run(a.op), OXI_OK) << dev.error();
    EXPECT_EQ(dev.ReadF32(a.y), std::vector<float>({1, 2, 3, 1, 2, 3}));
    a.x = dev.EmptyF32(0, 32);
    a.w = dev.Empty(OXI_DTYPE_Q4_0_X8, 8, 32);
    a.bias = sdk::Tensor();
    a.y = dev.EmptyF32(0, 8);
    EXPECT_EQ(dev.Run(a.op), OXI_OK) << dev.error();
  }
}

}  // namespace
}  // namespace cpu_test
}  // namespace oxinfer
