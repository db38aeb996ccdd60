#include "plugins/backends/cpu/cpu_test_ref.h"

#include <algorithm>
#include <cmath>

namespace oxinfer {
namespace cpu_test {

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
      const int j = static_cast<int>(i % OXI_QK);
      const int q = j < 16 ? (b.qs[j] & 0x0f) : (b.qs[j - 16] >> 4);
      return static_cast<double>(oxi_f16_to_f32(b.d)) * (q - 8);
    }
    default:
      return NAN;
  }
}

std::vector<uint8_t> Encode(const std::vector<float>& w, int64_t n, int64_t k, oxi_dtype t) {
  const int64_t rb = oxi_dtype_row_bytes(t, k);
  std::vector<uint8_t> out(static_cast<size_t>(n * rb));
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

}  // namespace cpu_test
}  // namespace oxinfer
