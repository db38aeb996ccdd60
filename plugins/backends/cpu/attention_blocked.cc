// Prefill attention with causality, windows, masks, softcaps, spans or ring
// caches (everything the GEMM path of attention_gemm.cc declines): blocks of
// queries against tiles of slots with flash attention's online softmax. Per
// (batch part, KV head, block of queries), the query heads that share the KV
// head are stacked into one operand, so each K / V tile is converted once per
// block and every product is a small GEMM (small_gemm.cc). The visibility
// rule of ops.h is applied per score; tiles no query of the block can see
// (causal or window bounds on plain positions) are skipped.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "plugins/backends/cpu/attention.h"
#include "plugins/backends/cpu/buffer.h"
#include "plugins/backends/cpu/runtime.h"
#include "plugins/backends/cpu/small_gemm.h"
#include "plugins/backends/cpu/vec.h"

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {
namespace {

constexpr int64_t kBlockQ = 32;  // queries per block (times the group's heads)
constexpr int64_t kTile = 128;   // slots per tile

const int32_t* Opt(const oxi_tensor& t) {
  return Present(t) ? RowPtr<const int32_t>(t, 0) : nullptr;
}

struct Blocked {
  const oxi_attention_args& a;
  const AttnShape& s;
  const int32_t *q_pos, *kv_pos, *q_span, *kv_span;
  oxi_dtype type;
  int64_t elem;

  int64_t QPos(int64_t t) const { return q_pos != nullptr ? q_pos[t] : t; }
  int64_t KvPos(int64_t i) const { return kv_pos != nullptr ? kv_pos[i] : i; }
  bool Visible(int64_t t, int64_t i) const {
    const int64_t kp = KvPos(i), qp = QPos(t);
    if (kp < 0) return false;
    const int32_t span = q_span != nullptr ? q_span[t] : 0;
    if (span != 0 && kv_span != nullptr && kv_span[i] == span) return true;
    return (!a.causal || kp <= qp) && (a.window <= 0 || qp - kp < a.window);
  }

  // Whether slots [i0, i1) may be visible to queries [t0, t1): false only
  // when plain positions put the whole tile out of reach.
  bool TileMaySee(int64_t t0, int64_t t1, int64_t i0, int64_t i1) const {
    if (kv_pos != nullptr || q_span != nullptr) return true;
    int64_t lo = QPos(t0), hi = lo;
    for (int64_t t = t0; t < t1; ++t) {
      lo = std::min(lo, QPos(t));
      hi = std::max(hi, QPos(t));
    }
    if (a.causal && i0 > hi) return false;
    if (a.window > 0 && lo - (i1 - 1) >= a.window) return false;
    return true;
  }

  // A row of n values as f32: in place for f32, else converted into buf.
  const float* RowF32(const uint8_t* row, int64_t n, float* buf) const {
    if (type == OXI_DTYPE_F32) return reinterpret_cast<const float*>(row);
    const uint16_t* p = reinterpret_cast<const uint16_t*>(row);
    if (type == OXI_DTYPE_BF16) {
      for (int64_t i = 0; i < n; ++i) buf[i] = oxi_bf16_to_f32(p[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) buf[i] = oxi_f16_to_f32(p[i]);
    }
    return buf;
  }

  void Item(int64_t b, int32_t kvh, int64_t t0, int64_t nt) const;
};

void Blocked::Item(int64_t b, int32_t kvh, int64_t t0, int64_t nt) const {
  const int64_t n_kv = s.n_kv, hd = s.head_dim, vd = s.v_head_dim;
  const int32_t group = s.n_heads / s.n_kv_heads;
  const int64_t R = group * nt;
  const float scale = a.scale, softcap = a.softcap;
  const float ninf = -std::numeric_limits<float>::infinity();
  // Q [R][hd], K^T [hd][kTile], V [kTile][vd], scores [R][kTile], O [R][vd],
  // running max and sum [R].
  const int64_t floats = R * hd + hd * kTile + kTile * vd + R * kTile + R * vd + 2 * R + hd + 64;
  float* qs = static_cast<float*>(Scratch(kScratchOp, floats * sizeof(float)));
  float* kt = qs + R * hd;
  float* vt = kt + hd * kTile;
  float* sc = vt + kTile * vd;
  float* o = sc + R * kTile;
  float* mx = o + R * vd;
  float* sum = mx + R;
  float* krow = sum + R;
  const bool plain = kv_pos == nullptr && q_span == nullptr;
  for (int32_t g = 0; g < group; ++g) {
    const int64_t h = static_cast<int64_t>(kvh) * group + g;
    for (int64_t i = 0; i < nt; ++i) {
      std::memcpy(qs + (g * nt + i) * hd, RowPtr<const float>(a.q, b * s.n_q + t0 + i) + h * hd,
                  hd * sizeof(float));
    }
  }
  std::fill(o, o + R * vd, 0.0f);
  std::fill(mx, mx + R, ninf);
  std::fill(sum, sum + R, 0.0f);
  const float* mask_rows = Present(a.mask) ? RowPtr<const float>(a.mask, t0) : nullptr;
  const int64_t mask_ld = Present(a.mask) ? Ld(a.mask) : 0;
  for (int64_t i0 = 0; i0 < n_kv; i0 += kTile) {
    const int64_t T = std::min(kTile, n_kv - i0);
    if (!TileMaySee(t0, t0 + nt, i0, i0 + T)) continue;
    // K^T and V of the tile as f32; slots nobody may read (empty ring slots)
    // as zeros, so that whatever they hold cannot reach the sums.
    for (int64_t j = 0; j < T; ++j) {
      float* vj = vt + j * vd;
      if (KvPos(i0 + j) < 0) {
        for (int64_t e = 0; e < hd; ++e) kt[e * kTile + j] = 0.0f;
        std::fill(vj, vj + vd, 0.0f);
        continue;
      }
      const uint8_t* kr = RowPtr<const uint8_t>(a.k, b * n_kv + i0 + j) + kvh * hd * elem;
      const uint8_t* vr = RowPtr<const uint8_t>(a.v, b * n_kv + i0 + j) + kvh * vd * elem;
      const float* kf = RowF32(kr, hd, krow);
      for (int64_t e = 0; e < hd; ++e) kt[e * kTile + j] = kf[e];
      const float* vf = RowF32(vr, vd, vj);
      if (vf != vj) std::memcpy(vj, vf, vd * sizeof(float));
    }
    SmallGemm(R, T, hd, qs, hd, kt, kTile, sc, kTile, false);
    for (int64_t r = 0; r < R; ++r) {
      const int64_t t = t0 + r % nt;
      float* e = sc + r * kTile;
      const float* mrow = mask_rows != nullptr ? mask_rows + (r % nt) * mask_ld + i0 : nullptr;
      for (int64_t j = 0; j < T; ++j) e[j] *= scale;
      if (softcap > 0.0f) {
        for (int64_t j = 0; j < T; ++j) e[j] = softcap * std::tanh(e[j] / softcap);
      }
      if (mrow != nullptr) {
        for (int64_t j = 0; j < T; ++j) e[j] += mrow[j];
      }
      if (plain) {  // a contiguous range of slots: [qp - window + 1, qp]
        const int64_t qp = QPos(t);
        const int64_t lo = a.window > 0 ? qp - a.window + 1 : 0;
        const int64_t hi = a.causal ? qp + 1 : n_kv;
        const int64_t jlo = std::clamp<int64_t>(lo - i0, 0, T);
        const int64_t jhi = std::clamp<int64_t>(hi - i0, jlo, T);
        std::fill(e, e + jlo, ninf);
        std::fill(e + jhi, e + T, ninf);
      } else {
        for (int64_t j = 0; j < T; ++j) {
          if (!Visible(t, i0 + j)) e[j] = ninf;
        }
      }
      float tile_max = ninf;
      for (int64_t j = 0; j < T; ++j) tile_max = std::max(tile_max, e[j]);
      if (tile_max == ninf) {
        std::fill(e, e + T, 0.0f);
        continue;
      }
      const float m_new = std::max(mx[r], tile_max);
      const float corr = mx[r] == ninf ? 0.0f : std::exp(mx[r] - m_new);
      for (int64_t j = 0; j < T; ++j) e[j] -= m_new;
      ExpInPlace(e, T);
      float tsum = 0.0f;
      for (int64_t j = 0; j < T; ++j) tsum += e[j];
      sum[r] = sum[r] * corr + tsum;
      mx[r] = m_new;
      if (corr != 1.0f) {
        float* orow = o + r * vd;
        for (int64_t c = 0; c < vd; ++c) orow[c] *= corr;
      }
    }
    SmallGemm(R, vd, T, sc, kTile, vt, vd, o, vd, true);
  }
  for (int32_t g = 0; g < group; ++g) {
    const int64_t h = static_cast<int64_t>(kvh) * group + g;
    for (int64_t i = 0; i < nt; ++i) {
      const int64_t r = g * nt + i;
      float* dst = RowPtr<float>(a.out, b * s.n_q + t0 + i) + h * vd;
      const float inv = sum[r] > 0.0f ? 1.0f / sum[r] : 0.0f;
      for (int64_t c = 0; c < vd; ++c) dst[c] = o[r * vd + c] * inv;
    }
  }
}

}  // namespace

void AttentionBlocked(const oxi_attention_args& a, const AttnShape& s) {
  const oxi_dtype type = static_cast<oxi_dtype>(a.k.dtype);
  const Blocked bl{a,
                   s,
                   Opt(a.q_pos),
                   Opt(a.kv_pos),
                   Opt(a.q_span),
                   Opt(a.kv_span),
                   type,
                   oxi_dtype_block_bytes(type)};
  const int64_t nb = (s.n_q + kBlockQ - 1) / kBlockQ;
  const int64_t per_part = s.n_kv_heads * nb;
  // Blocks ordered first, last, second, second last, ...: the pool splits the
  // items into contiguous ranges, and causal blocks grow with their index.
  Parallel(s.batch * per_part, 1, [&](int64_t w0, int64_t w1) {
    for (int64_t w = w0; w < w1; ++w) {
      const int64_t b = w / per_part, kvh = w % per_part / nb, z = w % nb;
      const int64_t blk = z % 2 == 0 ? z / 2 : nb - 1 - z / 2;
      const int64_t t0 = blk * kBlockQ;
      bl.Item(b, static_cast<int32_t>(kvh), t0, std::min(kBlockQ, s.n_q - t0));
    }
  });
}

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer
