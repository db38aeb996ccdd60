#include "plugins/models/sd/sd_ops.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "oxinfer/plugin.hpp"

namespace oxinfer {
namespace sd {

absl::Status BackendStatus(int32_t code, const char* op) {
  if (code == OXI_OK) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(code),
                      absl::StrCat("backend op ", op, " failed with status ", code));
}

#define SD_HAS(op) \
  (be_ != nullptr && OXI_HAS_FIELD(be_, oxi_backend_iface, op) && be_->op != nullptr)

void Linear::StoreAs(oxi_dtype t) {
  if (t != OXI_DTYPE_F16 && t != OXI_DTYPE_BF16) t = OXI_DTYPE_F32;
  if (t == dtype) return;
  if (dtype != OXI_DTYPE_F32) {  // back to f32 first
    w.resize(w16.size());
    for (size_t i = 0; i < w16.size(); ++i) {
      w[i] = dtype == OXI_DTYPE_F16 ? oxi_f16_to_f32(w16[i]) : oxi_bf16_to_f32(w16[i]);
    }
    w16 = std::vector<uint16_t>();
    dtype = OXI_DTYPE_F32;
  }
  if (t == OXI_DTYPE_F32) return;
  w16.resize(w.size());
  for (size_t i = 0; i < w.size(); ++i) {
    w16[i] = t == OXI_DTYPE_F16 ? oxi_f32_to_f16(w[i]) : oxi_f32_to_bf16(w[i]);
  }
  w = std::vector<float>();
  dtype = t;
}

absl::Status Ops::MatMul(const float* x, int64_t m, const Linear& l, float* y) const {
  if (m == 0) return absl::OkStatus();
  if (SD_HAS(matmul)) {
    const void* wp = l.dtype == OXI_DTYPE_F32 ? static_cast<const void*>(l.w.data())
                                              : static_cast<const void*>(l.w16.data());
    absl::Status s =
        BackendStatus(be_->matmul(be_->self, x, m, l.in, wp, l.dtype, l.out, y), "matmul");
    if (!s.ok()) return s;
  } else {
    const int64_t k = l.in, n = l.out;
    std::vector<float> converted;
    if (l.dtype != OXI_DTYPE_F32) {
      Linear tmp;
      tmp.dtype = l.dtype;
      tmp.w16 = l.w16;
      tmp.StoreAs(OXI_DTYPE_F32);
      converted = std::move(tmp.w);
    }
    const float* w = l.dtype == OXI_DTYPE_F32 ? l.w.data() : converted.data();
    sdk::ParallelFor(host_, m, 1, [&](int64_t begin, int64_t end, int32_t) {
      for (int64_t i = begin; i < end; ++i) {
        const float* xi = x + i * k;
        for (int64_t j = 0; j < n; ++j) {
          const float* wj = w + j * k;
          float acc = 0.f;
          for (int64_t t = 0; t < k; ++t) acc += xi[t] * wj[t];
          y[i * n + j] = acc;
        }
      }
    });
  }
  if (!l.b.empty()) return AddBroadcast(y, m * l.out, l.b.data(), l.out);
  return absl::OkStatus();
}

absl::Status Ops::Apply(const Act& x, const Linear& l, Act* y) const {
  if (x.c != l.in) {
    return absl::InvalidArgumentError(
        absl::StrCat("linear expects ", l.in, " inputs, activation has ", x.c));
  }
  *y = Act(x.n, x.h, x.w, l.out);
  return MatMul(x.data(), x.rows(), l, y->data());
}

absl::Status Ops::Conv2d(const Act& x, const Conv& conv, Act* y) const {
  if (x.c != conv.cin) {
    return absl::InvalidArgumentError(
        absl::StrCat("conv expects ", conv.cin, " channels, activation has ", x.c));
  }
  const int64_t ho = (x.h + 2 * conv.pad - conv.kh) / conv.stride + 1;
  const int64_t wo = (x.w + 2 * conv.pad - conv.kw) / conv.stride + 1;
  *y = Act(x.n, ho, wo, conv.lin.out);
  if (conv.kh == 1 && conv.kw == 1 && conv.stride == 1 && conv.pad == 0) {
    return MatMul(x.data(), x.rows(), conv.lin, y->data());
  }
  // im2col in chunks of output rows: at most 64 MB gathered at a time, so each
  // chunk reuses the weights over many rows and the VAE at 512x512 still fits.
  const int64_t k = conv.lin.in;
  const int64_t total = x.n * ho * wo;
  const int64_t chunk =
      std::max<int64_t>(1, std::min<int64_t>(total, (int64_t{64} << 20) / (k * 4)));
  std::vector<float> cols(static_cast<size_t>(chunk * k));
  for (int64_t r0 = 0; r0 < total; r0 += chunk) {
    const int64_t rn = std::min(chunk, total - r0);
    sdk::ParallelFor(host_, rn, 16, [&](int64_t begin, int64_t end, int32_t) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t g = r0 + r;
        const int64_t b = g / (ho * wo);
        const int64_t oy = (g / wo) % ho;
        const int64_t ox = g % wo;
        float* dst = cols.data() + r * k;
        for (int64_t ky = 0; ky < conv.kh; ++ky) {
          const int64_t iy = oy * conv.stride - conv.pad + ky;
          for (int64_t kx = 0; kx < conv.kw; ++kx) {
            const int64_t ix = ox * conv.stride - conv.pad + kx;
            float* d = dst + (ky * conv.kw + kx) * x.c;
            if (iy < 0 || iy >= x.h || ix < 0 || ix >= x.w) {
              std::fill(d, d + x.c, 0.f);
            } else {
              const float* s = x.data() + ((b * x.h + iy) * x.w + ix) * x.c;
              std::copy(s, s + x.c, d);
            }
          }
        }
      }
    });
    absl::Status s = MatMul(cols.data(), rn, conv.lin, y->data() + r0 * conv.lin.out);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status Ops::GroupNorm(const Act& x, const Norm& nrm, bool silu, Act* y) const {
  const int64_t g = nrm.groups;
  if (g <= 0 || x.c % g != 0 || static_cast<int64_t>(nrm.gamma.size()) != x.c) {
    return absl::InvalidArgumentError(absl::StrCat("group norm: ", x.c, " channels, ", g,
                                                   " groups, ", nrm.gamma.size(), " weights"));
  }
  *y = Act(x.n, x.h, x.w, x.c);
  const int64_t cg = x.c / g, hw = x.h * x.w;
  // SiLU through the backend's vectorised op when it has one (std::exp per
  // element was a large part of the VAE's time); inline otherwise.
  const bool silu_inline = silu && !SD_HAS(unary);
  sdk::ParallelFor(host_, x.n * g, 1, [&](int64_t begin, int64_t end, int32_t) {
    for (int64_t job = begin; job < end; ++job) {
      const int64_t b = job / g, grp = job % g;
      const float* base = x.data() + b * hw * x.c + grp * cg;
      double sum = 0;
      for (int64_t p = 0; p < hw; ++p)
        for (int64_t c = 0; c < cg; ++c) sum += base[p * x.c + c];
      const double mean = sum / static_cast<double>(hw * cg);
      double var = 0;
      for (int64_t p = 0; p < hw; ++p)
        for (int64_t c = 0; c < cg; ++c) {
          const double d = base[p * x.c + c] - mean;
          var += d * d;
        }
      var /= static_cast<double>(hw * cg);
      const float rstd = static_cast<float>(1.0 / std::sqrt(var + nrm.eps));
      const float fmean = static_cast<float>(mean);
      float* out = y->data() + b * hw * x.c + grp * cg;
      for (int64_t p = 0; p < hw; ++p)
        for (int64_t c = 0; c < cg; ++c) {
          const int64_t ch = grp * cg + c;
          float v = (base[p * x.c + c] - fmean) * rstd * nrm.gamma[ch] + nrm.beta[ch];
          if (silu_inline) v = v / (1.f + std::exp(-v));
          out[p * x.c + c] = v;
        }
    }
  });
  if (silu && !silu_inline) return Unary(OXI_UNARY_SILU, y->data(), y->size());
  return absl::OkStatus();
}

absl::Status Ops::LayerNorm(const Act& x, const Norm& nrm, Act* y) const {
  if (static_cast<int64_t>(nrm.gamma.size()) != x.c) {
    return absl::InvalidArgumentError("layer norm: weight size differs from the width");
  }
  *y = Act(x.n, x.h, x.w, x.c);
  const int64_t dim = x.c;
  sdk::ParallelFor(host_, x.rows(), 16, [&](int64_t begin, int64_t end, int32_t) {
    for (int64_t r = begin; r < end; ++r) {
      const float* in = x.data() + r * dim;
      double sum = 0;
      for (int64_t i = 0; i < dim; ++i) sum += in[i];
      const double mean = sum / dim;
      double var = 0;
      for (int64_t i = 0; i < dim; ++i) var += (in[i] - mean) * (in[i] - mean);
      var /= dim;
      const float rstd = static_cast<float>(1.0 / std::sqrt(var + nrm.eps));
      const float fmean = static_cast<float>(mean);
      float* out = y->data() + r * dim;
      for (int64_t i = 0; i < dim; ++i) {
        out[i] = (in[i] - fmean) * rstd * nrm.gamma[i] + (nrm.beta.empty() ? 0.f : nrm.beta[i]);
      }
    }
  });
  return absl::OkStatus();
}

absl::Status Ops::Attention(const Act& q, const Act& k, const Act& v, int64_t heads, bool causal,
                            Act* out) const {
  if (q.c % heads != 0 || k.c != q.c || v.c != q.c || k.n != q.n || v.n != q.n ||
      k.rows() != v.rows()) {
    return absl::InvalidArgumentError("attention: inconsistent shapes");
  }
  const int64_t lq = q.h * q.w, lk = k.h * k.w, dh = q.c / heads;
  const float scale = 1.f / std::sqrt(static_cast<float>(dh));
  *out = Act(q.n, q.h, q.w, q.c);
  if (!causal && SD_HAS(matmul) && SD_HAS(softmax)) {
    return AttentionGemm(q, k, v, heads, out);
  }
  if (SD_HAS(attention)) {
    std::vector<int32_t> q_pos(lq), kv_pos(lk);
    for (int64_t i = 0; i < lq; ++i) q_pos[i] = causal ? static_cast<int32_t>(i) : 0;
    for (int64_t i = 0; i < lk; ++i) kv_pos[i] = causal ? static_cast<int32_t>(i) : 0;
    for (int64_t b = 0; b < q.n; ++b) {
      oxi_attention_params p{};
      p.struct_size = sizeof(p);
      p.n_q = lq;
      p.n_kv = lk;
      p.n_heads = static_cast<int32_t>(heads);
      p.n_kv_heads = static_cast<int32_t>(heads);
      p.head_dim = static_cast<int32_t>(dh);
      p.v_head_dim = static_cast<int32_t>(dh);
      p.q = q.data() + b * lq * q.c;
      p.k = k.data() + b * lk * k.c;
      p.v = v.data() + b * lk * v.c;
      p.q_pos = q_pos.data();
      p.kv_pos = kv_pos.data();
      p.out = out->data() + b * lq * q.c;
      p.scale = scale;
      p.softcap = 0.f;
      p.causal = causal ? 1 : 0;
      p.window = 0;
      absl::Status s = BackendStatus(be_->attention(be_->self, &p), "attention");
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }
  const int64_t dim = q.c;
  sdk::ParallelFor(host_, q.n * heads * lq, 4, [&](int64_t begin, int64_t end, int32_t) {
    std::vector<float> score(lk);
    for (int64_t job = begin; job < end; ++job) {
      const int64_t b = job / (heads * lq);
      const int64_t hh = (job / lq) % heads;
      const int64_t i = job % lq;
      const float* qi = q.data() + (b * lq + i) * dim + hh * dh;
      const int64_t n_seen = causal ? i + 1 : lk;
      float mx = -std::numeric_limits<float>::infinity();
      for (int64_t j = 0; j < n_seen; ++j) {
        const float* kj = k.data() + (b * lk + j) * dim + hh * dh;
        float acc = 0.f;
        for (int64_t t = 0; t < dh; ++t) acc += qi[t] * kj[t];
        score[j] = acc * scale;
        mx = std::max(mx, score[j]);
      }
      double sum = 0;
      for (int64_t j = 0; j < n_seen; ++j) {
        score[j] = std::exp(score[j] - mx);
        sum += score[j];
      }
      const float inv = static_cast<float>(1.0 / sum);
      float* o = out->data() + (b * lq + i) * dim + hh * dh;
      std::fill(o, o + dh, 0.f);
      for (int64_t j = 0; j < n_seen; ++j) {
        const float p = score[j] * inv;
        const float* vj = v.data() + (b * lk + j) * dim + hh * dh;
        for (int64_t t = 0; t < dh; ++t) o[t] += p * vj[t];
      }
    }
  });
  return absl::OkStatus();
}

// Long non-causal attention (UNet and VAE pixels) as two GEMMs per head on
// the backend's matmul: S = Q K^T (K rows are the weight rows), softmax,
// O = S V (V transposed into weight rows), over chunks of queries so that S
// stays within 32 MB.
absl::Status Ops::AttentionGemm(const Act& q, const Act& k, const Act& v, int64_t heads,
                                Act* out) const {
  const int64_t lq = q.h * q.w, lk = k.h * k.w, dim = q.c, dh = dim / heads;
  const float scale = 1.f / std::sqrt(static_cast<float>(dh));
  const int64_t chunk = std::max<int64_t>(1, std::min<int64_t>(lq, (int64_t{32} << 20) / (lk * 4)));
  std::vector<float> qh(static_cast<size_t>(lq * dh)), oh(static_cast<size_t>(chunk * dh));
  std::vector<float> s(static_cast<size_t>(chunk * lk));
  Linear kh, vt;
  kh.in = dh;
  kh.out = lk;
  kh.w.resize(static_cast<size_t>(lk * dh));
  vt.in = lk;
  vt.out = dh;
  vt.w.resize(static_cast<size_t>(dh * lk));
  for (int64_t b = 0; b < q.n; ++b) {
    const float* qb = q.data() + b * lq * dim;
    const float* kb = k.data() + b * lk * dim;
    const float* vb = v.data() + b * lk * dim;
    float* ob = out->data() + b * lq * dim;
    for (int64_t hh = 0; hh < heads; ++hh) {
      for (int64_t i = 0; i < lq; ++i) {
        std::copy(qb + i * dim + hh * dh, qb + i * dim + (hh + 1) * dh, qh.data() + i * dh);
      }
      for (int64_t j = 0; j < lk; ++j) {
        std::copy(kb + j * dim + hh * dh, kb + j * dim + (hh + 1) * dh, kh.w.data() + j * dh);
        for (int64_t t = 0; t < dh; ++t) vt.w[t * lk + j] = vb[j * dim + hh * dh + t];
      }
      for (int64_t i0 = 0; i0 < lq; i0 += chunk) {
        const int64_t cq = std::min(chunk, lq - i0);
        absl::Status st = MatMul(qh.data() + i0 * dh, cq, kh, s.data());
        if (!st.ok()) return st;
        st = BackendStatus(be_->softmax(be_->self, s.data(), cq, lk, scale), "softmax");
        if (!st.ok()) return st;
        st = MatMul(s.data(), cq, vt, oh.data());
        if (!st.ok()) return st;
        for (int64_t i = 0; i < cq; ++i) {
          std::copy(oh.data() + i * dh, oh.data() + (i + 1) * dh, ob + (i0 + i) * dim + hh * dh);
        }
      }
    }
  }
  return absl::OkStatus();
}

absl::Status Ops::Unary(oxi_unary_op op, float* x, int64_t n) const {
  if (SD_HAS(unary)) return BackendStatus(be_->unary(be_->self, op, x, n, x), "unary");
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    switch (op) {
      case OXI_UNARY_SILU:
        x[i] = v / (1.f + std::exp(-v));
        break;
      case OXI_UNARY_GELU_ERF:
        x[i] = 0.5f * v * (1.f + std::erf(v * 0.70710678118654752f));
        break;
      case OXI_UNARY_SIGMOID:
        x[i] = 1.f / (1.f + std::exp(-v));
        break;
      case OXI_UNARY_GELU_TANH:
        x[i] = 0.5f * v * (1.f + std::tanh(0.7978845608028654f * (v + 0.044715f * v * v * v)));
        break;
      default:
        return absl::UnimplementedError("unary op not available");
    }
  }
  return absl::OkStatus();
}

absl::Status Ops::QuickGelu(float* x, int64_t n) const {
  std::vector<float> s(x, x + n);
  for (float& v : s) v *= 1.702f;
  absl::Status st = Unary(OXI_UNARY_SIGMOID, s.data(), n);
  if (!st.ok()) return st;
  for (int64_t i = 0; i < n; ++i) x[i] *= s[i];
  return absl::OkStatus();
}

absl::Status Ops::AddInPlace(float* a, const float* b, int64_t n) const {
  if (SD_HAS(binary))
    return BackendStatus(be_->binary(be_->self, OXI_BINARY_ADD, a, b, n, n, a), "add");
  for (int64_t i = 0; i < n; ++i) a[i] += b[i];
  return absl::OkStatus();
}

absl::Status Ops::AddBroadcast(float* x, int64_t n, const float* b, int64_t n_b) const {
  if (SD_HAS(binary)) {
    return BackendStatus(be_->binary(be_->self, OXI_BINARY_ADD, x, b, n, n_b, x), "add");
  }
  for (int64_t i = 0; i < n; ++i) x[i] += b[i % n_b];
  return absl::OkStatus();
}

Act Ops::Upsample2x(const Act& x) {
  Act y(x.n, x.h * 2, x.w * 2, x.c);
  for (int64_t b = 0; b < x.n; ++b)
    for (int64_t iy = 0; iy < y.h; ++iy)
      for (int64_t ix = 0; ix < y.w; ++ix) {
        const float* s = x.data() + ((b * x.h + iy / 2) * x.w + ix / 2) * x.c;
        std::copy(s, s + x.c, y.data() + ((b * y.h + iy) * y.w + ix) * x.c);
      }
  return y;
}

Act Ops::ConcatChannels(const Act& a, const Act& b) {
  Act y(a.n, a.h, a.w, a.c + b.c);
  for (int64_t r = 0; r < a.rows(); ++r) {
    std::copy(a.data() + r * a.c, a.data() + (r + 1) * a.c, y.data() + r * y.c);
    std::copy(b.data() + r * b.c, b.data() + (r + 1) * b.c, y.data() + r * y.c + a.c);
  }
  return y;
}

}  // namespace sd
}  // namespace oxinfer
