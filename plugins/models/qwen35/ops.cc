#include "plugins/models/qwen35/ops.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "oxinfer/plugin.hpp"

namespace oxinfer {
namespace qwen35 {
namespace {

absl::Status FromOxi(int32_t rc, const char* op) {
  if (rc == OXI_OK) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(rc),
                      absl::StrCat("backend op ", op, " failed with status ", rc));
}

// Dequantises row r of a [rows][k] matrix of any supported dtype into out[k].
bool DequantRow(const void* w, oxi_dtype t, int64_t k, int64_t r, float* out) {
  const int64_t row_bytes = oxi_dtype_row_bytes(t, k);
  if (row_bytes <= 0) return false;
  if (oxi_dtype_is_x8(t)) {
    uint8_t blk[sizeof(oxi_block_q8_0)];
    for (int64_t b = 0; b < k / OXI_QK; ++b) {
      oxi_dtype_x8_block(w, t, k, r, b, blk);
      DequantRow(blk, oxi_dtype_plain(t), OXI_QK, 0, out + b * OXI_QK);
    }
    return true;
  }
  const uint8_t* row = static_cast<const uint8_t*>(w) + r * row_bytes;
  switch (t) {
    case OXI_DTYPE_F32:
      std::memcpy(out, row, k * sizeof(float));
      return true;
    case OXI_DTYPE_BF16:
      for (int64_t i = 0; i < k; ++i) {
        uint16_t h;
        std::memcpy(&h, row + 2 * i, 2);
        out[i] = oxi_bf16_to_f32(h);
      }
      return true;
    case OXI_DTYPE_F16:
      for (int64_t i = 0; i < k; ++i) {
        uint16_t h;
        std::memcpy(&h, row + 2 * i, 2);
        out[i] = oxi_f16_to_f32(h);
      }
      return true;
    case OXI_DTYPE_Q8_0:
      for (int64_t b = 0; b < k / OXI_QK; ++b) {
        oxi_block_q8_0 blk;
        std::memcpy(&blk, row + b * sizeof(blk), sizeof(blk));
        const float d = oxi_f16_to_f32(blk.d);
        for (int i = 0; i < OXI_QK; ++i) out[b * OXI_QK + i] = d * blk.qs[i];
      }
      return true;
    case OXI_DTYPE_Q4_0:
      for (int64_t b = 0; b < k / OXI_QK; ++b) {
        oxi_block_q4_0 blk;
        std::memcpy(&blk, row + b * sizeof(blk), sizeof(blk));
        const float d = oxi_f16_to_f32(blk.d);
        for (int i = 0; i < OXI_QK / 2; ++i) {
          out[b * OXI_QK + i] = d * ((blk.qs[i] & 0x0f) - 8);
          out[b * OXI_QK + i + 16] = d * ((blk.qs[i] >> 4) - 8);
        }
      }
      return true;
    default:
      return false;
  }
}

}  // namespace

float LoadFloat(const void* data, oxi_dtype dtype, int64_t i) {
  float f = 0.0f;
  const uint8_t* p = static_cast<const uint8_t*>(data);
  uint16_t h;
  switch (dtype) {
    case OXI_DTYPE_F32:
      std::memcpy(&f, p + 4 * i, 4);
      return f;
    case OXI_DTYPE_BF16:
      std::memcpy(&h, p + 2 * i, 2);
      return oxi_bf16_to_f32(h);
    case OXI_DTYPE_F16:
      std::memcpy(&h, p + 2 * i, 2);
      return oxi_f16_to_f32(h);
    default:
      return 0.0f;
  }
}

template <typename F>
bool Ops::Has(F oxi_backend_iface::*field, size_t end_offset) const {
  return b_ != nullptr && b_->struct_size >= end_offset && (b_->*field) != nullptr;
}

#define OXI_HAS_OP(name) \
  Has(&oxi_backend_iface::name, offsetof(oxi_backend_iface, name) + sizeof(b_->name))

absl::Status Ops::MatMul(const float* x, int64_t m, int64_t k, const void* w, oxi_dtype w_dtype,
                         int64_t n, float* y) const {
  if (OXI_HAS_OP(matmul)) return FromOxi(b_->matmul(b_->self, x, m, k, w, w_dtype, n, y), "matmul");
  if (oxi_dtype_row_bytes(w_dtype, k) <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("matmul: bad weight dtype ", oxi_dtype_name(w_dtype)));
  }
  ParallelIfWorth(host_, n, m * n * k, [&](int64_t n0, int64_t n1, int32_t) {
    std::vector<float> row(static_cast<size_t>(k));
    for (int64_t j = n0; j < n1; ++j) {
      DequantRow(w, w_dtype, k, j, row.data());
      for (int64_t i = 0; i < m; ++i) {
        const float* xi = x + i * k;
        double s = 0.0;
        for (int64_t t = 0; t < k; ++t) s += static_cast<double>(xi[t]) * row[t];
        y[i * n + j] = static_cast<float>(s);
      }
    }
  });
  return absl::OkStatus();
}

oxi_dtype Ops::MatmulWeightDtype(oxi_dtype dtype, int64_t n, int64_t k) const {
  if (!OXI_HAS_OP(matmul_weight_dtype)) return dtype;
  // Only a layout of the same values counts; anything else is ignored.
  const oxi_dtype got = b_->matmul_weight_dtype(b_->self, dtype, n, k);
  return oxi_dtype_plain(got) == dtype ? got : dtype;
}

absl::Status Ops::Convert(const void* src, oxi_dtype src_dtype, void* dst, oxi_dtype dst_dtype,
                          int64_t rows, int64_t k) const {
  if (OXI_HAS_OP(convert)) {
    return FromOxi(b_->convert(b_->self, src, src_dtype, dst, dst_dtype, rows, k), "convert");
  }
  if (dst_dtype != OXI_DTYPE_F32 && dst_dtype != OXI_DTYPE_BF16 && dst_dtype != OXI_DTYPE_F16) {
    return absl::UnimplementedError(
        absl::StrCat("no backend convert to ", oxi_dtype_name(dst_dtype)));
  }
  std::vector<float> row(static_cast<size_t>(k));
  uint8_t* out = static_cast<uint8_t*>(dst);
  for (int64_t r = 0; r < rows; ++r) {
    if (!DequantRow(src, src_dtype, k, r, row.data())) {
      return absl::InvalidArgumentError("convert: bad source dtype");
    }
    for (int64_t i = 0; i < k; ++i) {
      if (dst_dtype == OXI_DTYPE_F32) {
        std::memcpy(out + (r * k + i) * 4, &row[i], 4);
      } else {
        uint16_t h = dst_dtype == OXI_DTYPE_BF16 ? oxi_f32_to_bf16(row[i]) : oxi_f32_to_f16(row[i]);
        std::memcpy(out + (r * k + i) * 2, &h, 2);
      }
    }
  }
  return absl::OkStatus();
}

absl::Status Ops::GetRows(const void* table, oxi_dtype dtype, int64_t n_rows, int64_t k,
                          const int32_t* ids, int64_t n_ids, float* out) const {
  for (int64_t i = 0; i < n_ids; ++i) {
    if (ids[i] < 0 || ids[i] >= n_rows) {
      return absl::OutOfRangeError(absl::StrCat("token id ", ids[i], " outside [0, ", n_rows, ")"));
    }
  }
  if (OXI_HAS_OP(get_rows)) {
    return FromOxi(b_->get_rows(b_->self, table, dtype, n_rows, k, ids, n_ids, out), "get_rows");
  }
  for (int64_t i = 0; i < n_ids; ++i) {
    if (!DequantRow(table, dtype, k, ids[i], out + i * k)) {
      return absl::InvalidArgumentError("get_rows: bad dtype");
    }
  }
  return absl::OkStatus();
}

absl::Status Ops::RmsNorm(const float* x, const float* weight, float weight_offset, int64_t rows,
                          int64_t dim, float eps, float* out) const {
  if (OXI_HAS_OP(rms_norm)) {
    return FromOxi(b_->rms_norm(b_->self, x, weight, weight_offset, rows, dim, eps, out),
                   "rms_norm");
  }
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * dim;
    double ss = 0.0;
    for (int64_t i = 0; i < dim; ++i) ss += static_cast<double>(xr[i]) * xr[i];
    const float inv = 1.0f / std::sqrt(static_cast<float>(ss / dim) + eps);
    for (int64_t i = 0; i < dim; ++i) {
      const float w = weight != nullptr ? weight[i] + weight_offset : 1.0f;
      out[r * dim + i] = xr[i] * inv * w;
    }
  }
  return absl::OkStatus();
}

absl::Status Ops::Rope(float* x, int64_t n_tok, int32_t n_heads, int32_t head_dim, int32_t rot_dim,
                       const int32_t* pos, const float* inv_freq) const {
  if (OXI_HAS_OP(rope)) {
    return FromOxi(b_->rope(b_->self, x, n_tok, n_heads, head_dim, rot_dim, pos, inv_freq), "rope");
  }
  const int32_t half = rot_dim / 2;
  for (int64_t t = 0; t < n_tok; ++t) {
    for (int32_t i = 0; i < half; ++i) {
      const float angle = static_cast<float>(pos[t]) * inv_freq[i];
      const float c = std::cos(angle), s = std::sin(angle);
      for (int32_t h = 0; h < n_heads; ++h) {
        float* xh = x + (t * n_heads + h) * head_dim;
        const float a = xh[i], b = xh[i + half];
        xh[i] = a * c - b * s;
        xh[i + half] = b * c + a * s;
      }
    }
  }
  return absl::OkStatus();
}

absl::Status Ops::Unary(oxi_unary_op op, const float* x, int64_t n, float* out) const {
  if (OXI_HAS_OP(unary)) return FromOxi(b_->unary(b_->self, op, x, n, out), "unary");
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    switch (op) {
      case OXI_UNARY_SILU:
        out[i] = v / (1.0f + std::exp(-v));
        break;
      case OXI_UNARY_SIGMOID:
        out[i] = 1.0f / (1.0f + std::exp(-v));
        break;
      case OXI_UNARY_SOFTPLUS:
        out[i] = v > 20.0f ? v : std::log1p(std::exp(v));
        break;
      case OXI_UNARY_EXP:
        out[i] = std::exp(v);
        break;
      case OXI_UNARY_TANH:
        out[i] = std::tanh(v);
        break;
      default:
        return absl::UnimplementedError("unary op");
    }
  }
  return absl::OkStatus();
}

absl::Status Ops::Binary(oxi_binary_op op, const float* a, const float* b, int64_t n, int64_t nb,
                         float* out) const {
  if (OXI_HAS_OP(binary)) return FromOxi(b_->binary(b_->self, op, a, b, n, nb, out), "binary");
  for (int64_t i = 0; i < n; ++i) {
    const float x = a[i], y = b[i % nb];
    switch (op) {
      case OXI_BINARY_ADD:
        out[i] = x + y;
        break;
      case OXI_BINARY_SUB:
        out[i] = x - y;
        break;
      case OXI_BINARY_MUL:
        out[i] = x * y;
        break;
      case OXI_BINARY_DIV:
        out[i] = x / y;
        break;
      default:
        return absl::UnimplementedError("binary op");
    }
  }
  return absl::OkStatus();
}

absl::Status Ops::Attention(const oxi_attention_params& p) const {
  if (OXI_HAS_OP(attention)) return FromOxi(b_->attention(b_->self, &p), "attention");
  const int32_t group = p.n_heads / p.n_kv_heads;
  const int64_t ks = p.k_row_stride ? p.k_row_stride : int64_t{p.n_kv_heads} * p.head_dim;
  const int64_t vs = p.v_row_stride ? p.v_row_stride : int64_t{p.n_kv_heads} * p.v_head_dim;
  ParallelIfWorth(host_, p.n_q * p.n_heads,
                  p.n_q * p.n_heads * p.n_kv * (p.head_dim + p.v_head_dim),
                  [&](int64_t r0, int64_t r1, int32_t) {
                    std::vector<float> score(static_cast<size_t>(p.n_kv));
                    std::vector<double> acc(static_cast<size_t>(p.v_head_dim));
                    for (int64_t r = r0; r < r1; ++r) {
                      const int64_t t = r / p.n_heads;
                      const int32_t h = static_cast<int32_t>(r % p.n_heads);
                      const int32_t hk = h / group;
                      const float* qh = p.q + r * p.head_dim;
                      float mx = -INFINITY;
                      for (int64_t i = 0; i < p.n_kv; ++i) {
                        const int32_t kp = p.kv_pos[i];
                        bool vis = kp >= 0 && (!p.causal || kp <= p.q_pos[t]) &&
                                   (p.window <= 0 || p.q_pos[t] - kp < p.window);
                        if (!vis) {
                          score[i] = -INFINITY;
                          continue;
                        }
                        const float* kh = p.k + i * ks + int64_t{hk} * p.head_dim;
                        double s = 0.0;
                        for (int32_t d = 0; d < p.head_dim; ++d)
                          s += static_cast<double>(qh[d]) * kh[d];
                        float sc = static_cast<float>(s) * p.scale;
                        if (p.softcap > 0) sc = p.softcap * std::tanh(sc / p.softcap);
                        score[i] = sc;
                        mx = std::max(mx, sc);
                      }
                      float* oh = p.out + r * p.v_head_dim;
                      if (mx == -INFINITY) {
                        std::fill(oh, oh + p.v_head_dim, 0.0f);
                        continue;
                      }
                      double sum = 0.0;
                      for (int64_t i = 0; i < p.n_kv; ++i) {
                        const float e = score[i] == -INFINITY ? 0.0f : std::exp(score[i] - mx);
                        score[i] = e;
                        sum += e;
                      }
                      std::fill(acc.begin(), acc.end(), 0.0);
                      for (int64_t i = 0; i < p.n_kv; ++i) {
                        if (score[i] == 0.0f) continue;
                        const float w = static_cast<float>(score[i] / sum);
                        const float* vh = p.v + i * vs + int64_t{hk} * p.v_head_dim;
                        for (int32_t d = 0; d < p.v_head_dim; ++d)
                          acc[d] += static_cast<double>(w) * vh[d];
                      }
                      for (int32_t d = 0; d < p.v_head_dim; ++d) oh[d] = static_cast<float>(acc[d]);
                    }
                  });
  return absl::OkStatus();
}

}  // namespace qwen35
}  // namespace oxinfer
