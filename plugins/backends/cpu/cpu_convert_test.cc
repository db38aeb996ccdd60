// convert (GGUF-exact quantisers, float conversions, the _X8 layout), copy,
// get_rows, set_rows, fill and concat, against the references in
// cpu_test_ref, on every variant; strided views and tails included.
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

// Runs convert (or copy) of src into a new dst of type dt; returns dst's bytes.
std::vector<uint8_t> Convert(Dev& dev, int kind, const void* src, oxi_dtype st, oxi_dtype dt,
                             int64_t rows, int64_t k, int64_t src_pad = 0, int64_t dst_pad = 0) {
  auto a = Make<oxi_convert_args>(kind);
  const int64_t sb = oxi_dtype_row_bytes(st, k), db = oxi_dtype_row_bytes(dt, k);
  a.src = dev.Upload(src, st, rows, k, src_pad ? sb + src_pad : 0);
  a.dst = dev.Empty(dt, rows, k, dst_pad ? db + dst_pad : 0);
  EXPECT_EQ(dev.Run(a.op), OXI_OK) << dev.error();
  return dev.ReadBytes(a.dst);
}

TEST(CpuConvert, QuantisesBitExactlyAsGguf) {
  const int64_t rows = 5, k = 32 * 9;
  std::vector<float> src = Random(rows * k, 7, -3.0f, 3.0f);
  // Edge blocks: all zero, exact .5 ties (roundf goes away from zero), a
  // negative extreme, equal magnitudes of both signs, and tiny values.
  for (int j = 0; j < 32; ++j) src[j] = 0.0f;
  for (int j = 0; j < 32; ++j) src[32 + j] = (j == 0) ? 127.0f : (j - 16) + 0.5f;
  for (int j = 0; j < 32; ++j) src[64 + j] = (j == 5) ? -4.0f : 0.25f * (j % 7) - 0.75f;
  for (int j = 0; j < 32; ++j) src[96 + j] = (j % 2) ? 2.0f : -2.0f;
  for (int j = 0; j < 32; ++j) src[128 + j] = 1e-30f * (j - 16);
  for (const Variant& v : Variants()) {
    Dev dev(v);
    for (oxi_dtype t : {OXI_DTYPE_Q8_0, OXI_DTYPE_Q4_0, OXI_DTYPE_BF16, OXI_DTYPE_F16}) {
      SCOPED_TRACE(v.name + " " + oxi_dtype_name(t));
      const std::vector<uint8_t> want = Encode(src, rows, k, t);
      EXPECT_EQ(Convert(dev, OXI_OP_CONVERT, src.data(), OXI_DTYPE_F32, t, rows, k), want);
      // Strided source and destination rows.
      EXPECT_EQ(Convert(dev, OXI_OP_CONVERT, src.data(), OXI_DTYPE_F32, t, rows, k, 12, 6), want);
    }
  }
}

TEST(CpuConvert, QuantisationRoundTripIsWithinHalfAStep) {
  const int64_t k = 32 * 64;
  const std::vector<float> src = Random(k, 11, -5.0f, 5.0f);
  for (const Variant& v : Variants()) {
    Dev dev(v);
    for (oxi_dtype t : {OXI_DTYPE_Q8_0, OXI_DTYPE_Q4_0}) {
      SCOPED_TRACE(v.name + " " + oxi_dtype_name(t));
      const std::vector<uint8_t> q =
          Convert(dev, OXI_OP_CONVERT, src.data(), OXI_DTYPE_F32, t, 1, k);
      const std::vector<uint8_t> b = Convert(dev, OXI_OP_CONVERT, q.data(), t, OXI_DTYPE_F32, 1, k);
      const auto* back = reinterpret_cast<const float*>(b.data());
      for (int64_t blk = 0; blk < k / OXI_QK; ++blk) {
        float amax = 0.0f;
        for (int j = 0; j < OXI_QK; ++j) amax = std::max(amax, std::fabs(src[blk * OXI_QK + j]));
        // Q8_0: step amax/127. Q4_0: step amax/8, the end opposite to the max
        // clamped at 7 steps. The f16 scale adds up to 2^-11 per step.
        const double step = t == OXI_DTYPE_Q8_0 ? amax / 127.0 : amax / 8.0;
        const double bound =
            (t == OXI_DTYPE_Q8_0 ? 0.5 + 127.0 / 2048 : 1.0 + 8.0 / 2048) * step + 1e-7;
        for (int j = 0; j < OXI_QK; ++j) {
          const int64_t i = blk * OXI_QK + j;
          ASSERT_NEAR(back[i], src[i], bound) << i;
          ASSERT_EQ(back[i], static_cast<float>(Elem(q.data(), t, i)));
        }
      }
    }
  }
}

TEST(CpuConvert, FloatsToFloatsByConvertAndCopy) {
  const int64_t rows = 3, k = 37;
  std::vector<float> src = Random(rows * k, 5, -70000.0f, 70000.0f);
  src[0] = NAN;
  src[1] = -INFINITY;
  src[2] = 1e-7f;  // f16 subnormal
  src[3] = -0.0f;
  for (const Variant& v : Variants()) {
    SCOPED_TRACE(v.name);
    Dev dev(v);
    for (int kind : {OXI_OP_CONVERT, OXI_OP_COPY}) {
      const std::vector<uint8_t> bf =
          Convert(dev, kind, src.data(), OXI_DTYPE_F32, OXI_DTYPE_BF16, rows, k, 8, 2);
      const std::vector<uint8_t> h =
          Convert(dev, kind, src.data(), OXI_DTYPE_F32, OXI_DTYPE_F16, rows, k);
      const std::vector<uint8_t> h2 =
          Convert(dev, kind, bf.data(), OXI_DTYPE_BF16, OXI_DTYPE_F16, rows, k, 2, 4);
      const std::vector<uint8_t> f =
          Convert(dev, kind, h.data(), OXI_DTYPE_F16, OXI_DTYPE_F32, rows, k, 0, 4);
      const auto* bfu = reinterpret_cast<const uint16_t*>(bf.data());
      const auto* hu = reinterpret_cast<const uint16_t*>(h.data());
      const auto* h2u = reinterpret_cast<const uint16_t*>(h2.data());
      const auto* ff = reinterpret_cast<const float*>(f.data());
      for (int64_t i = 0; i < rows * k; ++i) {
        ASSERT_EQ(bfu[i], oxi_f32_to_bf16(src[i])) << i;
        ASSERT_EQ(hu[i], oxi_f32_to_f16(src[i])) << i;
        ASSERT_EQ(h2u[i], oxi_f32_to_f16(oxi_bf16_to_f32(bfu[i]))) << i;
        const float want = oxi_f16_to_f32(hu[i]);
        if (std::isnan(want)) {
          ASSERT_TRUE(std::isnan(ff[i]));
        } else {
          ASSERT_EQ(ff[i], want) << i;
        }
      }
    }
    // Same type: bytes copied, any type.
    const std::vector<int32_t> ints = {1, -2, 3, 4, 5, 6};
    const std::vector<uint8_t> got =
        Convert(dev, OXI_OP_COPY, ints.data(), OXI_DTYPE_I32, OXI_DTYPE_I32, 2, 3, 4, 8);
    EXPECT_EQ(std::vector<int32_t>(reinterpret_cast<const int32_t*>(got.data()),
                                   reinterpret_cast<const int32_t*>(got.data()) + 6),
              ints);
    // Refused pairs, with a message.
    auto a = Make<oxi_convert_args>(OXI_OP_CONVERT);
    a.src = dev.F32(src, rows, k);
    a.dst = dev.Empty(OXI_DTYPE_I32, rows, k);
    dev.ExpectRejected(a.op, "convert: f32 to i32");
    a.dst = dev.Empty(OXI_DTYPE_F32, rows, k + 1);
    dev.ExpectRejected(a.op, "");
    auto c = Make<oxi_copy_args>(OXI_OP_COPY);
    c.src = dev.F32(src, rows, k);
    c.dst = dev.Empty(OXI_DTYPE_Q8_0, rows, 32);
    dev.ExpectRejected(c.op, "copy: f32 to q8_0");
  }
}

TEST(CpuConvert, InterleavedLayoutAndBack) {
  const int64_t n = 24, k = 32 * 5;
  const std::vector<float> src = Random(n * k, 21, -3.0f, 3.0f);
  std::vector<uint16_t> src_bf16(n * k);
  std::vector<float> widened(n * k);
  for (int64_t i = 0; i < n * k; ++i) {
    src_bf16[i] = oxi_f32_to_bf16(src[i]);
    widened[i] = oxi_bf16_to_f32(src_bf16[i]);
  }
  for (const Variant& v : Variants()) {
    Dev dev(v);
    for (oxi_dtype p : {OXI_DTYPE_Q8_0, OXI_DTYPE_Q4_0}) {
      const oxi_dtype x8 = X8Of(p);
      SCOPED_TRACE(v.name + " " + oxi_dtype_name(x8));
      const std::vector<uint8_t> plain = Encode(src, n, k, p);
      const std::vector<uint8_t> want = InterleaveRef(plain, n, k, p);
      EXPECT_EQ(Convert(dev, OXI_OP_CONVERT, src.data(), OXI_DTYPE_F32, x8, n, k), want);
      EXPECT_EQ(Convert(dev, OXI_OP_CONVERT, src.data(), OXI_DTYPE_F32, x8, n, k, 20), want);
      // From bf16 (as models load), as a repack of plain rows, and back.
      EXPECT_EQ(Convert(dev, OXI_OP_CONVERT, src_bf16.data(), OXI_DTYPE_BF16, x8, n, k),
                InterleaveRef(Encode(widened, n, k, p), n, k, p));
      EXPECT_EQ(Convert(dev, OXI_OP_CONVERT, plain.data(), p, x8, n, k, 2), want);
      EXPECT_EQ(Convert(dev, OXI_OP_CONVERT, want.data(), x8, p, n, k), plain);
      EXPECT_EQ(Convert(dev, OXI_OP_COPY, want.data(), x8, x8, n, k), want);
      const std::vector<uint8_t> f =
          Convert(dev, OXI_OP_CONVERT, want.data(), x8, OXI_DTYPE_F32, n, k, 0, 8);
      const auto* ff = reinterpret_cast<const float*>(f.data());
      for (int64_t r = 0; r < n; ++r) {
        for (int64_t i = 0; i < k; ++i) {
          ASSERT_EQ(ff[r * k + i],
                    static_cast<float>(Elem(plain.data() + r * (plain.size() / n), p, i)));
        }
      }
      // Whole groups of 8 rows only; no conversion between the _X8 types.
      auto a = Make<oxi_convert_args>(OXI_OP_CONVERT);
      a.src = dev.F32(Random(12 * k, 1), 12, k);
      a.dst = dev.Empty(x8, 12, k);
      dev.ExpectRejected(a.op, "not whole groups of 8");
      a.src = dev.Upload(want.data(), OXI_DTYPE_Q8_0_X8, 8, k);
      a.dst = dev.Empty(OXI_DTYPE_Q4_0_X8, 8, k);
      dev.ExpectRejected(a.op, "");
    }
  }
}

const oxi_dtype kWeightTypes[] = {OXI_DTYPE_F32, OXI_DTYPE_BF16, OXI_DTYPE_F16, OXI_DTYPE_Q8_0,
                                  OXI_DTYPE_Q4_0};

TEST(CpuGetRows, EveryTypeAndLayout) {
  const int64_t n_rows = 16, k = 64;
  const std::vector<float> table = Random(n_rows * k, 3);
  const std::vector<int32_t> ids = {15, 0, 3, 3, 9};
  for (const Variant& v : Variants()) {
    Dev dev(v);
    for (oxi_dtype t : kWeightTypes) {
      const std::vector<uint8_t> enc = Encode(table, n_rows, k, t);
      const int64_t rb = oxi_dtype_row_bytes(t, k);
      for (oxi_dtype stored : {t, X8Of(t)}) {
        if (stored != t && t != OXI_DTYPE_Q8_0 && t != OXI_DTYPE_Q4_0) continue;
        SCOPED_TRACE(v.name + " " + oxi_dtype_name(stored));
        auto a = Make<oxi_get_rows_args>(OXI_OP_GET_ROWS);
        const std::vector<uint8_t> data = stored == t ? enc : InterleaveRef(enc, n_rows, k, t);
        a.table = dev.Upload(data.data(), stored, n_rows, k, stored == t ? rb + 4 : 0);
        a.ids = dev.I32(ids);
        a.out = dev.EmptyF32(5, k, k + 3);
        if (!dev.Takes(a.op)) continue;  // a partial backend leaves it to the CPU
        ASSERT_EQ(dev.Run(a.op), OXI_OK) << dev.error();
        const std::vector<float> out = dev.ReadF32(a.out);
        for (int i = 0; i < 5; ++i) {
          for (int64_t p = 0; p < k; ++p) {
            ASSERT_EQ(out[i * k + p], static_cast<float>(Elem(enc.data() + ids[i] * rb, t, p)));
          }
        }
      }
    }
    auto a = Make<oxi_get_rows_args>(OXI_OP_GET_ROWS);
    a.table = dev.F32(table, n_rows, k);
    a.ids = dev.I32({-1});
    a.out = dev.EmptyF32(1, k);
    dev.ExpectRejected(a.op, "ids[0] = -1");
  }
}

TEST(CpuSetRows, RingSlotsKeepTheirValues) {
  const int64_t n_rows = 6, k = 24;
  const std::vector<float> src = Random(3 * k, 4, -100.0f, 100.0f);
  const std::vector<int32_t> ids = {4, 1, 4};  // repeated: the last row wins
  for (const Variant& v : Variants()) {
    Dev dev(v);
    for (oxi_dtype t : {OXI_DTYPE_F32, OXI_DTYPE_F16, OXI_DTYPE_BF16}) {
      SCOPED_TRACE(v.name + " " + oxi_dtype_name(t));
      const std::vector<float> before = Random(n_rows * k, 5);
      const std::vector<uint8_t> enc = Encode(before, n_rows, k, t);
      const int64_t rb = oxi_dtype_row_bytes(t, k);
      auto a = Make<oxi_set_rows_args>(OXI_OP_SET_ROWS);
      a.src = dev.F32(src, 3, k, k + 1);
      a.ids = dev.I32(ids);
      a.dst = dev.Upload(enc.data(), t, n_rows, k, rb + 8);
      ASSERT_EQ(dev.Run(a.op), OXI_OK) << dev.error();
      const std::vector<uint8_t> got = dev.ReadBytes(a.dst);
      std::vector<uint8_t> want = enc;
      const std::vector<uint8_t> rows = Encode(src, 3, k, t);
      std::copy(rows.begin() + 1 * rb, rows.begin() + 2 * rb, want.begin() + 1 * rb);
      std::copy(rows.begin() + 2 * rb, rows.begin() + 3 * rb, want.begin() + 4 * rb);
      EXPECT_EQ(got, want);
    }
    auto a = Make<oxi_set_rows_args>(OXI_OP_SET_ROWS);
    a.src = dev.F32(src, 3, k);
    a.ids = dev.I32({0, 6, 1});
    a.dst = dev.EmptyF32(n_rows, k);
    dev.ExpectRejected(a.op, "set_rows: ids[1] = 6");
  }
}

TEST(CpuFillConcat, Values) {
  for (const Variant& v : Variants()) {
    SCOPED_TRACE(v.name);
    Dev dev(v);
    for (oxi_dtype t : {OXI_DTYPE_F32, OXI_DTYPE_F16, OXI_DTYPE_BF16, OXI_DTYPE_I32}) {
      auto f = Make<oxi_fill_args>(OXI_OP_FILL);
      f.dst = dev.Empty(t, 5, 33, 33 * 4 + 12);
      f.value = -3.0f;
      ASSERT_EQ(dev.Run(f.op), OXI_OK) << dev.error();
      const std::vector<uint8_t> got = dev.ReadBytes(f.dst);
      std::vector<float> minus3(5 * 33, -3.0f);
      std::vector<uint8_t> want =
          t == OXI_DTYPE_I32 ? std::vector<uint8_t>() : Encode(minus3, 5, 33, t);
      if (t == OXI_DTYPE_I32) {
        const std::vector<int32_t> i(5 * 33, -3);
        want.assign(reinterpret_cast<const uint8_t*>(i.data()),
                    reinterpret_cast<const uint8_t*>(i.data()) + i.size() * 4);
      }
      EXPECT_EQ(got, want) << oxi_dtype_name(t);
    }
    auto f = Make<oxi_fill_args>(OXI_OP_FILL);
    f.dst = dev.Empty(OXI_DTYPE_I32, 1, 4);
    f.value = NAN;
    dev.ExpectRejected(f.op, "");

    const std::vector<float> a = Random(4 * 3, 1), b = Random(4 * 5, 2);
    auto c = Make<oxi_concat_args>(OXI_OP_CONCAT);
    c.a = dev.F32(a, 4, 3, 7);
    c.b = dev.F32(b, 4, 5);
    c.out = dev.EmptyF32(4, 8, 9);
    ASSERT_EQ(dev.Run(c.op), OXI_OK) << dev.error();
    const std::vector<float> out = dev.ReadF32(c.out);
    for (int r = 0; r < 4; ++r) {
      for (int i = 0; i < 8; ++i) {
        ASSERT_EQ(out[r * 8 + i], i < 3 ? a[r * 3 + i] : b[r * 5 + i - 3]) << r << " " << i;
      }
    }
    c.out = dev.EmptyF32(4, 9);
    dev.ExpectRejected(c.op, "concat: out is 4x9, not 4x8");
  }
}

}  // namespace
}  // namespace cpu_test
}  // namespace oxinfer
