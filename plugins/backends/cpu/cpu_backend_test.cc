// Tests of the CPU backend plugins, loaded as the host loads them (dlopen of
// the real .so files, given as arguments). Every variant this CPU runs is
// checked against straightforward double-precision formulas, and every SIMD
// variant against the scalar one.
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/cpu_features.h"
#include "core/host_services.h"
#include "gtest/gtest.h"
#include "oxinfer/dtype.h"
#include "oxinfer/plugin_abi.h"

namespace {

std::vector<std::string>* g_paths = nullptr;

struct Loaded {
  std::string path;
  const oxi_plugin* plugin = nullptr;
  int32_t score = 0;
  std::string reason;
  const oxi_backend_iface* iface = nullptr;
};

const std::vector<Loaded>& Plugins() {
  static std::vector<Loaded>* loaded = [] {
    auto* v = new std::vector<Loaded>();
    for (const std::string& path : *g_paths) {
      Loaded l;
      l.path = path;
      void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (h == nullptr) {
        ADD_FAILURE() << "dlopen " << path << ": " << dlerror();
        continue;
      }
      auto entry = reinterpret_cast<oxi_plugin_entry_fn>(dlsym(h, OXI_ENTRY_SYMBOL));
      if (entry == nullptr) {
        ADD_FAILURE() << path << " lacks " << OXI_ENTRY_SYMBOL;
        continue;
      }
      l.plugin = entry();
      char reason[256] = {};
      l.score = l.plugin->score(oxinfer::HostServices(), reason, sizeof reason);
      l.reason = reason;
      if (l.score > 0) {
        char error[256] = {};
        l.iface = static_cast<const oxi_backend_iface*>(
            l.plugin->get_interface(oxinfer::HostServices(), error, sizeof error));
        if (l.iface == nullptr) ADD_FAILURE() << path << ": " << error;
      }
      v->push_back(l);
    }
    return v;
  }();
  return *loaded;
}

const oxi_backend_iface* Scalar() {
  for (const Loaded& l : Plugins()) {
    if (std::string(l.plugin->name) == "cpu-scalar") return l.iface;
  }
  return nullptr;
}

// Every variant that runs here, scalar first.
std::vector<const Loaded*> Runnable() {
  std::vector<const Loaded*> r;
  for (const Loaded& l : Plugins()) {
    if (l.iface != nullptr) r.push_back(&l);
  }
  return r;
}

std::vector<float> RandomVector(size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& f : v) f = dist(rng);
  return v;
}

// ---- GGUF's reference quantisers, written out independently of the backend ----

oxi_block_q8_0 RefQuantQ8(const float* x) {
  oxi_block_q8_0 b;
  float amax = 0.0f;
  for (int j = 0; j < OXI_QK; ++j) amax = std::max(amax, std::fabs(x[j]));
  const float d = amax / 127.0f;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  b.d = oxi_f32_to_f16(d);
  for (int j = 0; j < OXI_QK; ++j) b.qs[j] = static_cast<int8_t>(std::roundf(x[j] * id));
  return b;
}

oxi_block_q4_0 RefQuantQ4(const float* x) {
  oxi_block_q4_0 b;
  float amax = 0.0f, max = 0.0f;
  for (int j = 0; j < OXI_QK; ++j) {
    if (amax < std::fabs(x[j])) {
      amax = std::fabs(x[j]);
      max = x[j];
    }
  }
  const float d = max / -8.0f;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  b.d = oxi_f32_to_f16(d);
  for (int j = 0; j < OXI_QK / 2; ++j) {
    const int8_t q0 = static_cast<int8_t>(x[j] * id + 8.5f);
    const int8_t q1 = static_cast<int8_t>(x[j + 16] * id + 8.5f);
    b.qs[j] = static_cast<uint8_t>(std::min<int>(15, q0) | (std::min<int>(15, q1) << 4));
  }
  return b;
}

// Element i of a row of type t, as double.
double Elem(const uint8_t* row, oxi_dtype t, int64_t i) {
  switch (t) {
    case OXI_DTYPE_F32:
      return reinterpret_cast<const float*>(row)[i];
    case OXI_DTYPE_BF16:
      return oxi_bf16_to_f32(reinterpret_cast<const uint16_t*>(row)[i]);
    case OXI_DTYPE_F16:
      return oxi_f16_to_f32(reinterpret_cast<const uint16_t*>(row)[i]);
    case OXI_DTYPE_Q8_0: {
      const auto& b = reinterpret_cast<const oxi_block_q8_0*>(row)[i / OXI_QK];
      return static_cast<double>(oxi_f16_to_f32(b.d)) * b.qs[i % OXI_QK];
    }
    case OXI_DTYPE_Q4_0: {
      const auto& b = reinterpret_cast<const oxi_block_q4_0*>(row)[i / OXI_QK];
      const int j = i % OXI_QK;
      const int q = j < 16 ? (b.qs[j] & 0x0f) : (b.qs[j - 16] >> 4);
      return static_cast<double>(oxi_f16_to_f32(b.d)) * (q - 8);
    }
    default:
      return NAN;
  }
}

// Weights [n][k] of type t from floats, through the reference encoders.
std::vector<uint8_t> Encode(const std::vector<float>& w, int64_t n, int64_t k, oxi_dtype t) {
  const int64_t rb = oxi_dtype_row_bytes(t, k);
  std::vector<uint8_t> out(n * rb);
  for (int64_t r = 0; r < n; ++r) {
    const float* src = w.data() + r * k;
    uint8_t* dst = out.data() + r * rb;
    for (int64_t i = 0; i < k; ++i) {
      if (t == OXI_DTYPE_F32) reinterpret_cast<float*>(dst)[i] = src[i];
      if (t == OXI_DTYPE_BF16) reinterpret_cast<uint16_t*>(dst)[i] = oxi_f32_to_bf16(src[i]);
      if (t == OXI_DTYPE_F16) reinterpret_cast<uint16_t*>(dst)[i] = oxi_f32_to_f16(src[i]);
    }
    for (int64_t b = 0; b < k / OXI_QK; ++b) {
      if (t == OXI_DTYPE_Q8_0) {
        reinterpret_cast<oxi_block_q8_0*>(dst)[b] = RefQuantQ8(src + b * OXI_QK);
      }
      if (t == OXI_DTYPE_Q4_0) {
        reinterpret_cast<oxi_block_q4_0*>(dst)[b] = RefQuantQ4(src + b * OXI_QK);
      }
    }
  }
  return out;
}

const oxi_dtype kWeightTypes[] = {OXI_DTYPE_F32, OXI_DTYPE_BF16, OXI_DTYPE_F16, OXI_DTYPE_Q8_0,
                                  OXI_DTYPE_Q4_0};

TEST(CpuPlugins, LoadAndScore) {
  ASSERT_EQ(Plugins().size(), g_paths->size());
  const uint64_t features = oxinfer::CpuFeatures();
  for (const Loaded& l : Plugins()) {
    SCOPED_TRACE(l.path);
    EXPECT_EQ(l.plugin->abi_major, OXI_ABI_MAJOR);
    EXPECT_EQ(l.plugin->kind, OXI_PLUGIN_BACKEND);
    const std::string name = l.plugin->name;
    if (name == "cpu-scalar") {
      EXPECT_EQ(l.score, 10);
    }
    if (name == "cpu-avx2") {
      const uint64_t need = OXI_CPU_AVX2 | OXI_CPU_FMA | OXI_CPU_F16C;
      EXPECT_EQ(l.score > 0, (features & need) == need) << l.reason;
    }
    if (name == "cpu-avx512") {
      if ((features & OXI_CPU_X86_64_V4) != OXI_CPU_X86_64_V4) {
        EXPECT_EQ(l.score, 0);
        EXPECT_NE(l.reason.find("lacks"), std::string::npos) << l.reason;
        // A host that ignores the score still gets no interface, not a crash.
        char error[128] = {};
        EXPECT_EQ(l.plugin->get_interface(oxinfer::HostServices(), error, sizeof error), nullptr);
      } else {
        EXPECT_EQ(l.score, 40);
      }
    }
    if (l.iface != nullptr) {
      EXPECT_EQ(l.iface->struct_size, sizeof(oxi_backend_iface));
      EXPECT_STREQ(l.iface->device_name, "cpu");
    }
  }
  ASSERT_NE(Scalar(), nullptr);
}

TEST(CpuPlugins, OnlyTheEntrySymbolIsExported) {
  for (const Loaded& l : Plugins()) {
    void* h = dlopen(l.path.c_str(), RTLD_NOW | RTLD_NOLOAD);
    ASSERT_NE(h, nullptr);
    EXPECT_NE(dlsym(h, OXI_ENTRY_SYMBOL), nullptr);
    // Kernel code is hidden: nothing with C++ linkage leaks.
    EXPECT_EQ(dlsym(h, "_ZN7oxinfer3cpu6scalar12GetInterfaceEPK17oxi_host_services"), nullptr);
    EXPECT_EQ(dlsym(h, "_ZN7oxinfer3cpu4avx212GetInterfaceEPK17oxi_host_services"), nullptr);
    dlclose(h);
  }
}

// ---------------- matmul ----------------

struct MatmulCase {
  int64_t m, k, n;
};

// y[i][j] in double from the encoded weights; Q8_0/Q4_0 use the activations
// quantised to Q8_0 (the backend's documented semantics). Also returns the
// magnitude sum |x||w| per output, for the tolerance.
void MatmulRef(const std::vector<float>& x, const std::vector<uint8_t>& w, oxi_dtype t,
               const MatmulCase& c, std::vector<double>* y, std::vector<double>* mag) {
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
      double s = 0.0, a = 0.0;
      for (int64_t p = 0; p < c.k; ++p) {
        s += xd[i * c.k + p] * wrow[p];
        a += std::fabs(xd[i * c.k + p] * wrow[p]);
      }
      (*y)[i * c.n + j] = s;
      (*mag)[i * c.n + j] = a;
    }
  }
}

std::vector<MatmulCase> MatmulCases(oxi_dtype t) {
  std::vector<MatmulCase> cases;
  const bool quant = t == OXI_DTYPE_Q8_0 || t == OXI_DTYPE_Q4_0;
  const std::vector<int64_t> ks = quant ? std::vector<int64_t>{32, 96, 160, 544, 1056}
                                        : std::vector<int64_t>{1, 7, 33, 100, 257, 544};
  const int64_t ms[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 37};
  const int64_t ns[] = {1, 3, 17, 50};
  for (int64_t m : ms) {
    for (int64_t n : ns) {
      cases.push_back({m, ks[(m + n) % ks.size()], n});
    }
  }
  cases.push_back({1, quant ? 4096 : 4100, 67});
  cases.push_back({37, quant ? 640 : 600, 53});
  cases.push_back({64, 256, 72});
  return cases;
}

TEST(CpuMatmul, MatchesDoubleReferenceAndScalar) {
  const oxi_backend_iface* scalar = Scalar();
  ASSERT_NE(scalar, nullptr);
  uint32_t seed = 1;
  for (oxi_dtype t : kWeightTypes) {
    for (const MatmulCase& c : MatmulCases(t)) {
      SCOPED_TRACE(std::string(oxi_dtype_name(t)) + " m=" + std::to_string(c.m) +
                   " k=" + std::to_string(c.k) + " n=" + std::to_string(c.n));
      const std::vector<float> x = RandomVector(c.m * c.k, seed++, -2.0f, 2.0f);
      const std::vector<uint8_t> w = Encode(RandomVector(c.n * c.k, seed++), c.n, c.k, t);
      std::vector<double> ref, mag;
      MatmulRef(x, w, t, c, &ref, &mag);
      std::vector<float> ys(c.m * c.n, NAN);
      ASSERT_EQ(scalar->matmul(scalar->self, x.data(), c.m, c.k, w.data(), t, c.n, ys.data()),
                OXI_OK);
      for (const Loaded* l : Runnable()) {
        SCOPED_TRACE(l->plugin->name);
        std::vector<float> y(c.m * c.n, NAN);
        ASSERT_EQ(l->iface->matmul(l->iface->self, x.data(), c.m, c.k, w.data(), t, c.n, y.data()),
                  OXI_OK);
        const double rel = 2e-6 * std::sqrt(static_cast<double>(c.k)) + 1e-6;
        for (int64_t i = 0; i < c.m * c.n; ++i) {
          const double tol = rel * mag[i] + 1e-30;
          ASSERT_NEAR(y[i], ref[i], tol) << "at " << i;
          ASSERT_NEAR(y[i], ys[i], 2 * tol) << "vs scalar at " << i;
        }
      }
    }
  }
}

TEST(CpuMatmul, RejectsBadArguments) {
  for (const Loaded* l : Runnable()) {
    float x[64] = {}, y[4] = {};
    uint8_t w[256] = {};
    EXPECT_EQ(l->iface->matmul(nullptr, x, 1, 33, w, OXI_DTYPE_Q8_0, 1, y), OXI_INVALID_ARGUMENT);
    EXPECT_EQ(l->iface->matmul(nullptr, x, 1, 32, w, OXI_DTYPE_I32, 1, y), OXI_UNIMPLEMENTED);
    EXPECT_EQ(l->iface->matmul(nullptr, x, 1, 32, nullptr, OXI_DTYPE_F32, 1, y),
              OXI_INVALID_ARGUMENT);
    EXPECT_EQ(l->iface->matmul(nullptr, x, 0, 32, w, OXI_DTYPE_F32, 1, y), OXI_OK);
  }
}

// ---------------- convert ----------------

TEST(CpuConvert, QuantisesBitExactlyAsGguf) {
  const int64_t rows = 5, k = 32 * 9;
  std::vector<float> src = RandomVector(rows * k, 7, -3.0f, 3.0f);
  // Edge blocks: all zero, exact .5 ties (roundf goes away from zero), a
  // negative extreme, equal magnitudes of both signs, and tiny values.
  for (int j = 0; j < 32; ++j) src[j] = 0.0f;
  for (int j = 0; j < 32; ++j) src[32 + j] = (j == 0) ? 127.0f : (j - 16) + 0.5f;
  for (int j = 0; j < 32; ++j) src[64 + j] = (j == 5) ? -4.0f : 0.25f * (j % 7) - 0.75f;
  for (int j = 0; j < 32; ++j) src[96 + j] = (j % 2) ? 2.0f : -2.0f;
  for (int j = 0; j < 32; ++j) src[128 + j] = 1e-30f * (j - 16);
  for (const Loaded* l : Runnable()) {
    SCOPED_TRACE(l->plugin->name);
    for (oxi_dtype t : {OXI_DTYPE_Q8_0, OXI_DTYPE_Q4_0, OXI_DTYPE_BF16, OXI_DTYPE_F16}) {
      SCOPED_TRACE(oxi_dtype_name(t));
      const std::vector<uint8_t> want = Encode(src, rows, k, t);
      std::vector<uint8_t> got(want.size(), 0xcd);
      ASSERT_EQ(l->iface->convert(nullptr, src.data(), OXI_DTYPE_F32, got.data(), t, rows, k),
                OXI_OK);
      for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << "byte " << i;
    }
  }
}

TEST(CpuConvert, QuantisationRoundTripIsWithinHalfAStep) {
  const int64_t k = 32 * 64;
  const std::vector<float> src = RandomVector(k, 11, -5.0f, 5.0f);
  for (const Loaded* l : Runnable()) {
    for (oxi_dtype t : {OXI_DTYPE_Q8_0, OXI_DTYPE_Q4_0}) {
      SCOPED_TRACE(std::string(l->plugin->name) + " " + oxi_dtype_name(t));
      std::vector<uint8_t> q(oxi_dtype_row_bytes(t, k));
      std::vector<float> back(k);
      ASSERT_EQ(l->iface->convert(nullptr, src.data(), OXI_DTYPE_F32, q.data(), t, 1, k), OXI_OK);
      ASSERT_EQ(l->iface->convert(nullptr, q.data(), t, back.data(), OXI_DTYPE_F32, 1, k), OXI_OK);
      for (int64_t b = 0; b < k / OXI_QK; ++b) {
        float amax = 0.0f;
        for (int j = 0; j < OXI_QK; ++j) amax = std::max(amax, std::fabs(src[b * OXI_QK + j]));
        // Q8_0: step amax/127. Q4_0: step amax/8, and the end opposite to the
        // max is clamped at 7 steps, a full step off at worst. The f16 scale
        // adds up to 2^-11 relative per step, times up to 127 (8) steps.
        const double step = t == OXI_DTYPE_Q8_0 ? amax / 127.0 : amax / 8.0;
        const double bound =
            (t == OXI_DTYPE_Q8_0 ? 0.5 + 127.0 / 2048 : 1.0 + 8.0 / 2048) * step + 1e-7;
        for (int j = 0; j < OXI_QK; ++j) {
          const int64_t i = b * OXI_QK + j;
          ASSERT_NEAR(back[i], src[i], bound) << i;
          ASSERT_EQ(back[i], static_cast<float>(Elem(q.data(), t, i)));
        }
        if (t == OXI_DTYPE_Q4_0) {
          // The max-magnitude element is exact up to the f16 scale.
          int jm = 0;
          for (int j = 0; j < OXI_QK; ++j) {
            if (std::fabs(src[b * OXI_QK + j]) > std::fabs(src[b * OXI_QK + jm])) jm = j;
          }
          EXPECT_NEAR(back[b * OXI_QK + jm], src[b * OXI_QK + jm], amax * 1e-3);
        }
      }
    }
  }
}

TEST(CpuConvert, FloatToFloatAndBack) {
  const int64_t rows = 3, k = 37;
  std::vector<float> src = RandomVector(rows * k, 5, -70000.0f, 70000.0f);
  src[0] = NAN;
  src[1] = -INFINITY;
  src[2] = 1e-7f;  // f16 subnormal
  src[3] = -0.0f;
  for (const Loaded* l : Runnable()) {
    SCOPED_TRACE(l->plugin->name);
    std::vector<uint16_t> bf(rows * k), h(rows * k), h2(rows * k);
    std::vector<float> f(rows * k);
    ASSERT_EQ(
        l->iface->convert(nullptr, src.data(), OXI_DTYPE_F32, bf.data(), OXI_DTYPE_BF16, rows, k),
        OXI_OK);
    ASSERT_EQ(
        l->iface->convert(nullptr, src.data(), OXI_DTYPE_F32, h.data(), OXI_DTYPE_F16, rows, k),
        OXI_OK);
    ASSERT_EQ(
        l->iface->convert(nullptr, bf.data(), OXI_DTYPE_BF16, h2.data(), OXI_DTYPE_F16, rows, k),
        OXI_OK);
    ASSERT_EQ(l->iface->convert(nullptr, h.data(), OXI_DTYPE_F16, f.data(), OXI_DTYPE_F32, rows, k),
              OXI_OK);
    for (int64_t i = 0; i < rows * k; ++i) {
      ASSERT_EQ(bf[i], oxi_f32_to_bf16(src[i])) << i;
      ASSERT_EQ(h[i], oxi_f32_to_f16(src[i])) << i;
      ASSERT_EQ(h2[i], oxi_f32_to_f16(oxi_bf16_to_f32(bf[i]))) << i;
      const float want = oxi_f16_to_f32(h[i]);
      if (std::isnan(want)) {
        ASSERT_TRUE(std::isnan(f[i]));
      } else {
        ASSERT_EQ(f[i], want) << i;
      }
    }
    EXPECT_EQ(l->iface->convert(nullptr, src.data(), OXI_DTYPE_F32, h.data(), OXI_DTYPE_I32, 1, 4),
              OXI_UNIMPLEMENTED);
    EXPECT_EQ(
        l->iface->convert(nullptr, src.data(), OXI_DTYPE_F32, h.data(), OXI_DTYPE_Q8_0, 1, 37),
        OXI_INVALID_ARGUMENT);
  }
}

TEST(CpuGetRows, EveryDtype) {
  const int64_t n_rows = 9, k = 64;
  const std::vector<float> table = RandomVector(n_rows * k, 3);
  const int32_t ids[] = {8, 0, 3, 3};
  for (const Loaded* l : Runnable()) {
    for (oxi_dtype t : kWeightTypes) {
      SCOPED_TRACE(std::string(l->plugin->name) + " " + oxi_dtype_name(t));
      const std::vector<uint8_t> enc = Encode(table, n_rows, k, t);
      std::vector<float> out(4 * k);
      ASSERT_EQ(l->iface->get_rows(nullptr, enc.data(), t, n_rows, k, ids, 4, out.data()), OXI_OK);
      const int64_t rb = oxi_dtype_row_bytes(t, k);
      for (int i = 0; i < 4; ++i) {
        for (int64_t p = 0; p < k; ++p) {
          ASSERT_EQ(out[i * k + p], static_cast<float>(Elem(enc.data() + ids[i] * rb, t, p)));
        }
      }
      const int32_t bad[] = {9};
      EXPECT_EQ(l->iface->get_rows(nullptr, enc.data(), t, n_rows, k, bad, 1, out.data()),
                OXI_OUT_OF_RANGE);
    }
  }
}

// ---------------- row-interleaved (_X8) weights ----------------

// The _X8 form of plain Q8_0 / Q4_0 rows, written from dtype.h's description.
std::vector<uint8_t> InterleaveRef(const std::vector<uint8_t>& plain, int64_t n, int64_t k,
                                   oxi_dtype p) {
  const int64_t bb = oxi_dtype_block_bytes(p), nb = k / OXI_QK, rb = nb * bb;
  std::vector<uint8_t> out(plain.size());
  for (int64_t g = 0; g < n / 8; ++g) {
    for (int64_t b = 0; b < nb; ++b) {
      uint8_t* sb = out.data() + (g * nb + b) * 8 * bb;
      for (int r = 0; r < 8; ++r) {
        const uint8_t* blk = plain.data() + (g * 8 + r) * rb + b * bb;
        sb[2 * r] = blk[0];
        sb[2 * r + 1] = blk[1];
        for (int64_t q = 0; q < bb - 2; ++q) sb[16 + 32 * (q / 4) + 4 * r + q % 4] = blk[2 + q];
      }
    }
  }
  return out;
}

oxi_dtype X8Of(oxi_dtype t) { return t == OXI_DTYPE_Q8_0 ? OXI_DTYPE_Q8_0_X8 : OXI_DTYPE_Q4_0_X8; }

TEST(CpuX8, ConvertWritesTheDocumentedLayoutAndBack) {
  const int64_t n = 24, k = 32 * 5;
  const std::vector<float> src = RandomVector(n * k, 21, -3.0f, 3.0f);
  std::vector<uint16_t> src_bf16(n * k);
  std::vector<float> widened(n * k);
  for (int64_t i = 0; i < n * k; ++i) {
    src_bf16[i] = oxi_f32_to_bf16(src[i]);
    widened[i] = oxi_bf16_to_f32(src_bf16[i]);
  }
  for (const Loaded* l : Runnable()) {
    for (oxi_dtype p : {OXI_DTYPE_Q8_0, OXI_DTYPE_Q4_0}) {
      const oxi_dtype x8 = X8Of(p);
      SCOPED_TRACE(std::string(l->plugin->name) + " " + oxi_dtype_name(x8));
      const oxi_backend_iface* b = l->iface;
      const std::vector<uint8_t> plain = Encode(src, n, k, p);
      const std::vector<uint8_t> want = InterleaveRef(plain, n, k, p);
      std::vector<uint8_t> got(want.size(), 0xcd);
      ASSERT_EQ(b->convert(b->self, src.data(), OXI_DTYPE_F32, got.data(), x8, n, k), OXI_OK);
      ASSERT_EQ(got, want);
      // From bf16 (as models load), as a repack of plain rows, and back.
      std::fill(got.begin(), got.end(), 0xcd);
      ASSERT_EQ(b->convert(b->self, src_bf16.data(), OXI_DTYPE_BF16, got.data(), x8, n, k), OXI_OK);
      ASSERT_EQ(got, InterleaveRef(Encode(widened, n, k, p), n, k, p));
      std::fill(got.begin(), got.end(), 0xcd);
      ASSERT_EQ(b->convert(b->self, plain.data(), p, got.data(), x8, n, k), OXI_OK);
      ASSERT_EQ(got, want);
      std::vector<uint8_t> back(plain.size(), 0xcd);
      ASSERT_EQ(b->convert(b->self, want.data(), x8, back.data(), p, n, k), OXI_OK);
      ASSERT_EQ(back, plain);
      std::vector<float> f(n * k);
      ASSERT_EQ(b->convert(b->self, want.data(), x8, f.data(), OXI_DTYPE_F32, n, k), OXI_OK);
      for (int64_t r = 0; r < n; ++r) {
        for (int64_t i = 0; i < k; ++i) {
          ASSERT_EQ(f[r * k + i],
                    static_cast<float>(Elem(plain.data() + r * (plain.size() / n), p, i)));
        }
      }
      // Whole groups of 8 rows only.
      EXPECT_EQ(b->convert(b->self, src.data(), OXI_DTYPE_F32, got.data(), x8, 12, k),
                OXI_INVALID_ARGUMENT);
      EXPECT_EQ(b->convert(b->self, want.data(), x8, f.data(), OXI_DTYPE_F32, 4, k),
                OXI_INVALID_ARGUMENT);
      EXPECT_EQ(
          b->convert(b->self, want.data(), OXI_DTYPE_Q8_0_X8, got.data(), OXI_DTYPE_Q4_0_X8, 8, k),
          OXI_UNIMPLEMENTED);
    }
  }
}

TEST(CpuX8, MatmulMatchesPlainRowsAndTheReference) {
  const oxi_backend_iface* scalar = Scalar();
  ASSERT_NE(scalar, nullptr);
  uint32_t seed = 100;
  // m > 8 on Q4_0x8 is the integer prefill: 64-row blocks, 4 rows per pass,
  // tails of 1-3 (11 = 8 + 3, 70 = 64 + 4 + 2).
  const int64_t ms[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 13, 37, 70};
  const int64_t ns[] = {8, 16, 56};
  const int64_t ks[] = {32, 96, 160, 544, 4096};
  for (oxi_dtype p : {OXI_DTYPE_Q8_0, OXI_DTYPE_Q4_0}) {
    int which = 0;
    for (int64_t m : ms) {
      for (int64_t n : ns) {
        const MatmulCase c{m, ks[which++ % 5], n};
        SCOPED_TRACE(std::string(oxi_dtype_name(X8Of(p))) + " m=" + std::to_string(c.m) +
                     " k=" + std::to_string(c.k) + " n=" + std::to_string(c.n));
        const std::vector<float> x = RandomVector(c.m * c.k, seed++, -2.0f, 2.0f);
        const std::vector<uint8_t> w = Encode(RandomVector(c.n * c.k, seed++), c.n, c.k, p);
        const std::vector<uint8_t> w8 = InterleaveRef(w, c.n, c.k, p);
        std::vector<double> ref, mag;
        MatmulRef(x, w, p, c, &ref, &mag);
        std::vector<float> ys(c.m * c.n, NAN);
        ASSERT_EQ(scalar->matmul(scalar->self, x.data(), c.m, c.k, w.data(), p, c.n, ys.data()),
                  OXI_OK);
        for (const Loaded* l : Runnable()) {
          SCOPED_TRACE(l->plugin->name);
          std::vector<float> y(c.m * c.n, NAN);
          ASSERT_EQ(l->iface->matmul(l->iface->self, x.data(), c.m, c.k, w8.data(), X8Of(p), c.n,
                                     y.data()),
                    OXI_OK);
          const double rel = 2e-6 * std::sqrt(static_cast<double>(c.k)) + 1e-6;
          for (int64_t i = 0; i < c.m * c.n; ++i) {
            const double tol = rel * mag[i] + 1e-30;
            ASSERT_NEAR(y[i], ref[i], tol) << "at " << i;
            ASSERT_NEAR(y[i], ys[i], 2 * tol) << "vs scalar on plain rows at " << i;
          }
        }
      }
    }
  }
  for (const Loaded* l : Runnable()) {
    float x[64] = {}, y[16] = {};
    uint8_t w[16 * 36] = {};
    EXPECT_EQ(l->iface->matmul(nullptr, x, 1, 64, w, OXI_DTYPE_Q4_0_X8, 12, y),
              OXI_INVALID_ARGUMENT);
    EXPECT_EQ(l->iface->matmul(nullptr, x, 1, 64, w, OXI_DTYPE_Q4_0_X8, 16, y), OXI_OK);
  }
}

TEST(CpuX8, GetRowsAndPreferredLayout) {
  const int64_t n_rows = 16, k = 64;
  const std::vector<float> table = RandomVector(n_rows * k, 33);
  const int32_t ids[] = {15, 0, 9, 9};
  for (const Loaded* l : Runnable()) {
    const oxi_backend_iface* b = l->iface;
    const std::string name = l->plugin->name;
    for (oxi_dtype p : {OXI_DTYPE_Q8_0, OXI_DTYPE_Q4_0}) {
      SCOPED_TRACE(name + " " + oxi_dtype_name(p));
      const std::vector<uint8_t> plain = Encode(table, n_rows, k, p);
      const std::vector<uint8_t> w8 = InterleaveRef(plain, n_rows, k, p);
      std::vector<float> out(4 * k), want(4 * k);
      ASSERT_EQ(b->get_rows(b->self, w8.data(), X8Of(p), n_rows, k, ids, 4, out.data()), OXI_OK);
      ASSERT_EQ(b->get_rows(b->self, plain.data(), p, n_rows, k, ids, 4, want.data()), OXI_OK);
      EXPECT_EQ(out, want);
      EXPECT_EQ(b->get_rows(b->self, w8.data(), X8Of(p), 12, k, ids + 1, 1, out.data()),
                OXI_INVALID_ARGUMENT);

      ASSERT_NE(b->matmul_weight_dtype, nullptr);
      // SIMD variants read quantised weights interleaved; the scalar
      // reference as asked. Never for a row count that is not whole groups.
      EXPECT_EQ(b->matmul_weight_dtype(b->self, p, 4096, 1024), name == "cpu-scalar" ? p : X8Of(p));
      EXPECT_EQ(b->matmul_weight_dtype(b->self, p, 4100, 1024), p);
    }
    EXPECT_EQ(b->matmul_weight_dtype(b->self, OXI_DTYPE_BF16, 4096, 1024), OXI_DTYPE_BF16);
  }
}

// ---------------- norms, rope, softmax ----------------

TEST(CpuRmsNorm, MatchesFormula) {
  const int64_t rows = 5, dim = 77;
  const std::vector<float> x = RandomVector(rows * dim, 21, -3.0f, 3.0f);
  const std::vector<float> w = RandomVector(dim, 22);
  for (const Loaded* l : Runnable()) {
    for (const float* weight : {w.data(), static_cast<const float*>(nullptr)}) {
      for (float offset : {0.0f, 1.0f}) {
        SCOPED_TRACE(l->plugin->name);
        std::vector<float> out(rows * dim);
        ASSERT_EQ(
            l->iface->rms_norm(nullptr, x.data(), weight, offset, rows, dim, 1e-6f, out.data()),
            OXI_OK);
        for (int64_t r = 0; r < rows; ++r) {
          double ss = 0.0;
          for (int64_t i = 0; i < dim; ++i) ss += double(x[r * dim + i]) * x[r * dim + i];
          const double inv = 1.0 / std::sqrt(ss / dim + 1e-6);
          for (int64_t i = 0; i < dim; ++i) {
            const double g = weight ? weight[i] + double(offset) : 1.0;
            const double want = x[r * dim + i] * inv * g;
            ASSERT_NEAR(out[r * dim + i], want, 2e-6 * (1 + std::fabs(want)));
          }
        }
      }
    }
  }
}

TEST(CpuRope, RotateHalfPartial) {
  const int64_t n_tok = 3;
  const int32_t n_heads = 2, head_dim = 12;
  const int32_t pos[] = {0, 5, 1000};
  for (int32_t rot_dim : {12, 8}) {
    std::vector<float> inv_freq(rot_dim / 2);
    for (int i = 0; i < rot_dim / 2; ++i) inv_freq[i] = std::pow(10000.0f, -2.0f * i / rot_dim);
    const std::vector<float> x0 = RandomVector(n_tok * n_heads * head_dim, 31);
    for (const Loaded* l : Runnable()) {
      SCOPED_TRACE(l->plugin->name);
      std::vector<float> x = x0;
      ASSERT_EQ(l->iface->rope(nullptr, x.data(), n_tok, n_heads, head_dim, rot_dim, pos,
                               inv_freq.data()),
                OXI_OK);
      const int half = rot_dim / 2;
      for (int64_t t = 0; t < n_tok; ++t) {
        for (int h = 0; h < n_heads; ++h) {
          const float* a = x0.data() + (t * n_heads + h) * head_dim;
          const float* b = x.data() + (t * n_heads + h) * head_dim;
          for (int i = 0; i < head_dim; ++i) {
            double want = a[i];
            if (i < rot_dim) {
              const int f = i % half;
              const double ang = double(float(pos[t]) * inv_freq[f]);
              want = i < half ? a[i] * std::cos(ang) - a[i + half] * std::sin(ang)
                              : a[i] * std::cos(ang) + a[i - half] * std::sin(ang);
            }
            ASSERT_NEAR(b[i], want, 1e-6) << t << " " << h << " " << i;
          }
        }
      }
    }
  }
}

TEST(CpuSoftmax, MatchesFormula) {
  const int64_t rows = 4, cols = 1001;
  const std::vector<float> x0 = RandomVector(rows * cols, 41, -20.0f, 20.0f);
  for (const Loaded* l : Runnable()) {
    SCOPED_TRACE(l->plugin->name);
    std::vector<float> x = x0;
    ASSERT_EQ(l->iface->softmax(nullptr, x.data(), rows, cols, 0.5f), OXI_OK);
    for (int64_t r = 0; r < rows; ++r) {
      double mx = -1e300, sum = 0.0;
      for (int64_t i = 0; i < cols; ++i) mx = std::max(mx, 0.5 * x0[r * cols + i]);
      for (int64_t i = 0; i < cols; ++i) sum += std::exp(0.5 * x0[r * cols + i] - mx);
      for (int64_t i = 0; i < cols; ++i) {
        const double want = std::exp(0.5 * x0[r * cols + i] - mx) / sum;
        ASSERT_NEAR(x[r * cols + i], want, 2e-6 * want + 1e-12);
      }
    }
  }
}

// ---------------- element-wise ----------------

double UnaryFormula(oxi_unary_op op, double v) {
  switch (op) {
    case OXI_UNARY_GELU_TANH:
      return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
    case OXI_UNARY_SILU:
      return v / (1 + std::exp(-v));
    case OXI_UNARY_SIGMOID:
      return 1 / (1 + std::exp(-v));
    case OXI_UNARY_SOFTPLUS:
      return v > 20 ? v : std::log1p(std::exp(v));
    case OXI_UNARY_EXP:
      return std::exp(v);
    case OXI_UNARY_TANH:
      return std::tanh(v);
    case OXI_UNARY_GELU_ERF:
      return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
  }
  return NAN;
}

TEST(CpuUnary, EveryOp) {
  std::vector<float> x = RandomVector(1003, 51, -12.0f, 12.0f);
  for (float v : {0.0f, -0.0f, 1e-6f, -1e-4f, 0.39f, 0.41f, 19.9f, 20.0f, 20.5f, 30.0f, -30.0f,
                  80.0f, -80.0f, 87.0f, -100.0f}) {
    x.push_back(v);
  }
  const oxi_unary_op ops[] = {OXI_UNARY_GELU_TANH, OXI_UNARY_SILU, OXI_UNARY_SIGMOID,
                              OXI_UNARY_SOFTPLUS,  OXI_UNARY_EXP,  OXI_UNARY_TANH,
                              OXI_UNARY_GELU_ERF};
  for (const Loaded* l : Runnable()) {
    for (oxi_unary_op op : ops) {
      SCOPED_TRACE(std::string(l->plugin->name) + " op " + std::to_string(op));
      std::vector<float> out(x.size());
      ASSERT_EQ(l->iface->unary(nullptr, op, x.data(), x.size(), out.data()), OXI_OK);
      for (size_t i = 0; i < x.size(); ++i) {
        const double want = UnaryFormula(op, x[i]);
        ASSERT_NEAR(out[i], want, 2e-6 * std::fabs(want) + 2e-6) << "x=" << x[i];
      }
    }
    float y;
    EXPECT_EQ(l->iface->unary(nullptr, static_cast<oxi_unary_op>(99), x.data(), 1, &y),
              OXI_UNIMPLEMENTED);
  }
}

TEST(CpuBinary, BroadcastAndScale) {
  const int64_t n = 7 * 13, nb = 13;
  const std::vector<float> a = RandomVector(n, 61);
  std::vector<float> b = RandomVector(n, 62);
  for (float& v : b) v += 2.0f;  // no division by ~0
  for (const Loaded* l : Runnable()) {
    SCOPED_TRACE(l->plugin->name);
    for (int64_t bn : {n, nb, int64_t{1}}) {
      for (oxi_binary_op op : {OXI_BINARY_ADD, OXI_BINARY_SUB, OXI_BINARY_MUL, OXI_BINARY_DIV}) {
        std::vector<float> out(n);
        ASSERT_EQ(l->iface->binary(nullptr, op, a.data(), b.data(), n, bn, out.data()), OXI_OK);
        for (int64_t i = 0; i < n; ++i) {
          const float u = a[i], v = b[i % bn];
          const float want = op == OXI_BINARY_ADD   ? u + v
                             : op == OXI_BINARY_SUB ? u - v
                             : op == OXI_BINARY_MUL ? u * v
                                                    : u / v;
          ASSERT_EQ(out[i], want) << i;
        }
      }
    }
    std::vector<float> out(n);
    EXPECT_EQ(l->iface->binary(nullptr, OXI_BINARY_ADD, a.data(), b.data(), n, 12, out.data()),
              OXI_INVALID_ARGUMENT);
    ASSERT_EQ(l->iface->scale(nullptr, a.data(), n, 1.5f, -0.25f, out.data()), OXI_OK);
    for (int64_t i = 0; i < n; ++i) {
      const float prod = a[i] * 1.5f;
      ASSERT_EQ(out[i], prod + -0.25f);
    }
  }
}

// ---------------- attention ----------------

struct AttnCase {
  const char* name;
  int64_t n_q, n_kv;
  int32_t n_heads, n_kv_heads, head_dim, v_head_dim;
  float softcap;
  int32_t causal, window;
  bool ring;    // kv_pos unsorted with empty (-1) slots
  bool shared;  // k and v are one buffer with a wider row (k = v)
};

void AttentionRef(const oxi_attention_params& p, std::vector<double>* out) {
  const int64_t ks = p.k_row_stride ? p.k_row_stride : int64_t(p.n_kv_heads) * p.head_dim;
  const int64_t vs = p.v_row_stride ? p.v_row_stride : int64_t(p.n_kv_heads) * p.v_head_dim;
  out->assign(p.n_q * p.n_heads * p.v_head_dim, 0.0);
  const int group = p.n_heads / p.n_kv_heads;
  for (int64_t t = 0; t < p.n_q; ++t) {
    for (int h = 0; h < p.n_heads; ++h) {
      const int kvh = h / group;
      std::vector<double> s(p.n_kv, 0.0);
      std::vector<bool> vis(p.n_kv, false);
      double mx = -1e300;
      for (int64_t i = 0; i < p.n_kv; ++i) {
        const int kp = p.kv_pos[i], qp = p.q_pos[t];
        vis[i] = kp >= 0 && (!p.causal || kp <= qp) && (p.window <= 0 || qp - kp < p.window);
        if (!vis[i]) continue;
        double d = 0.0;
        for (int e = 0; e < p.head_dim; ++e) {
          d += double(p.q[(t * p.n_heads + h) * p.head_dim + e]) *
               p.k[i * ks + kvh * p.head_dim + e];
        }
        d *= p.scale;
        if (p.softcap > 0) d = p.softcap * std::tanh(d / p.softcap);
        s[i] = d;
        mx = std::max(mx, d);
      }
      double sum = 0.0;
      for (int64_t i = 0; i < p.n_kv; ++i) {
        if (vis[i]) sum += std::exp(s[i] - mx);
      }
      for (int64_t i = 0; i < p.n_kv; ++i) {
        if (!vis[i]) continue;
        const double a = std::exp(s[i] - mx) / sum;
        for (int e = 0; e < p.v_head_dim; ++e) {
          (*out)[(t * p.n_heads + h) * p.v_head_dim + e] +=
              a * p.v[i * vs + kvh * p.v_head_dim + e];
        }
      }
    }
  }
}

TEST(CpuAttention, MatchesNaiveImplementation) {
  const AttnCase cases[] = {
      {"decode gqa", 1, 37, 8, 2, 64, 64, 0.0f, 1, 0, false, false},
      {"prefill causal", 9, 9, 4, 4, 32, 32, 0.0f, 1, 0, false, false},
      {"window softcap", 7, 20, 6, 3, 16, 24, 50.0f, 1, 5, false, false},
      {"ring buffer", 3, 16, 4, 1, 40, 40, 0.0f, 1, 6, true, false},
      {"k=v shared row", 5, 12, 4, 2, 24, 24, 0.0f, 1, 0, false, true},
      {"bidirectional", 4, 10, 2, 2, 8, 8, 30.0f, 0, 0, false, false},
      {"nothing visible", 2, 6, 2, 1, 8, 8, 0.0f, 1, 0, false, false},
      {"odd dims", 3, 33, 3, 1, 19, 13, 0.0f, 1, 0, false, false},
      {"gqa group split", 2, 30, 8, 1, 16, 16, 0.0f, 1, 9, false, false},
      {"gqa uneven split", 1, 25, 6, 1, 32, 32, 20.0f, 1, 0, false, false},
      {"gqa prefill wide group", 8, 40, 8, 1, 64, 48, 0.0f, 1, 0, false, false},
      {"gqa group of 6 odd dims", 9, 21, 12, 2, 20, 40, 0.0f, 1, 7, false, false},
      {"gqa ring group", 8, 16, 8, 1, 32, 32, 0.0f, 1, 0, true, false},
  };
  uint32_t seed = 100;
  for (const AttnCase& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<float> q = RandomVector(c.n_q * c.n_heads * c.head_dim, seed++, -2, 2);
    const int64_t kw = int64_t(c.n_kv_heads) * c.head_dim;
    const int64_t vw = int64_t(c.n_kv_heads) * c.v_head_dim;
    const int64_t row = c.shared ? kw + 8 : 0;  // a wider cache row, k = v
    std::vector<float> kbuf = RandomVector(c.n_kv * (c.shared ? row : kw), seed++, -2, 2);
    std::vector<float> vbuf = RandomVector(c.n_kv * vw, seed++);
    std::vector<int32_t> q_pos(c.n_q), kv_pos(c.n_kv);
    for (int64_t i = 0; i < c.n_kv; ++i) kv_pos[i] = static_cast<int32_t>(i);
    for (int64_t t = 0; t < c.n_q; ++t) q_pos[t] = static_cast<int32_t>(c.n_kv - c.n_q + t);
    if (c.ring) {
      // Slot i holds position 20 + (i + 5) % 16 for written slots; two empty.
      for (int64_t i = 0; i < c.n_kv; ++i) kv_pos[i] = 20 + static_cast<int32_t>((i + 5) % 16);
      kv_pos[3] = -1;
      kv_pos[11] = -1;
      // Never-written slots may hold anything: they must not be read.
      for (int64_t e = 0; e < kw; ++e) kbuf[3 * kw + e] = NAN;
      for (int64_t e = 0; e < vw; ++e) vbuf[11 * vw + e] = NAN;
      for (int64_t t = 0; t < c.n_q; ++t) q_pos[t] = 33 + static_cast<int32_t>(t);
    }
    if (std::string(c.name) == "nothing visible") {
      for (int64_t i = 0; i < c.n_kv; ++i) kv_pos[i] = 100 + static_cast<int32_t>(i);
      q_pos = {5, 7};
      kv_pos[0] = 6;  // the second query sees one slot
    }
    oxi_attention_params p = {};
    p.struct_size = sizeof p;
    p.n_q = c.n_q;
    p.n_kv = c.n_kv;
    p.n_heads = c.n_heads;
    p.n_kv_heads = c.n_kv_heads;
    p.head_dim = c.head_dim;
    p.v_head_dim = c.v_head_dim;
    p.q = q.data();
    p.k = kbuf.data();
    p.v = c.shared ? kbuf.data() : vbuf.data();
    p.k_row_stride = row;
    p.v_row_stride = row;
    p.q_pos = q_pos.data();
    p.kv_pos = kv_pos.data();
    p.scale = 1.0f / std::sqrt(float(c.head_dim));
    p.softcap = c.softcap;
    p.causal = c.causal;
    p.window = c.window;
    std::vector<double> ref;
    AttentionRef(p, &ref);
    for (const Loaded* l : Runnable()) {
      SCOPED_TRACE(l->plugin->name);
      std::vector<float> out(c.n_q * c.n_heads * c.v_head_dim, NAN);
      p.out = out.data();
      ASSERT_EQ(l->iface->attention(nullptr, &p), OXI_OK);
      for (size_t i = 0; i < out.size(); ++i) ASSERT_NEAR(out[i], ref[i], 2e-6) << i;
      if (std::string(c.name) == "nothing visible") {
        for (int e = 0; e < c.n_heads * c.v_head_dim; ++e) ASSERT_EQ(out[e], 0.0f);
      }
    }
  }
}

TEST(CpuAttention, RejectsBadShapes) {
  for (const Loaded* l : Runnable()) {
    oxi_attention_params p = {};
    p.struct_size = sizeof p;
    p.n_q = 1;
    p.n_heads = 3;
    p.n_kv_heads = 2;
    p.head_dim = p.v_head_dim = 4;
    EXPECT_EQ(l->iface->attention(nullptr, &p), OXI_INVALID_ARGUMENT);
    EXPECT_EQ(l->iface->attention(nullptr, nullptr), OXI_INVALID_ARGUMENT);
  }
}

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  g_paths = new std::vector<std::string>(argv + 1, argv + argc);
  if (g_paths->empty()) {
    std::fprintf(stderr, "usage: %s liboxinfer_cpu_*.so...\n", argv[0]);
    return 2;
  }
  return RUN_ALL_TESTS();
}
