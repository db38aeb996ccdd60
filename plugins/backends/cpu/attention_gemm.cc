// Long non-causal attention (the UNet's and VAE's pixels, every slot
// visible) as two GEMMs per head on the matmul kernels: S = Q K^T (K's rows
// are the weight rows), softmax(S * scale), O = S V (V transposed into
// weight rows), over chunks of queries so that S stays in a few MiB. Heads
// run in parallel when there are enough of them (each GEMM then serial),
// else one after the other with parallel GEMMs.
#include <algorithm>
#include <cstring>

#include "plugins/backends/cpu/attention.h"
#include "plugins/backends/cpu/buffer.h"
#include "plugins/backends/cpu/matmul_kernels.h"
#include "plugins/backends/cpu/runtime.h"
#include "plugins/backends/cpu/vec.h"

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {
namespace {

// Query rows per chunk: S (rows x n_kv floats) within `budget` bytes, at
// least 64 rows, and chunks of equal size so that none is small enough for
// the decode kernels (their rounding differs from the GEMM's).
int64_t ChunkRows(int64_t n_q, int64_t n_kv, int64_t budget) {
  const int64_t most = std::max<int64_t>(64, budget / (n_kv * 4));
  const int64_t chunks = (n_q + most - 1) / most;
  return (n_q + chunks - 1) / chunks;
}

// One (batch part, head): its output columns of out.
void AttendHead(const oxi_attention_args& a, const AttnShape& s, int64_t b, int32_t h,
                int64_t chunk, bool parallel_softmax) {
  const int64_t n_q = s.n_q, n_kv = s.n_kv, hd = s.head_dim, vd = s.v_head_dim;
  const int32_t kvh = h / (s.n_heads / s.n_kv_heads);
  // V^T [vd][n_kv], then Q's chunk [chunk][hd], S [chunk][n_kv], O [chunk][vd].
  float* vt = static_cast<float*>(Scratch(kScratchOp, vd * n_kv * sizeof(float)));
  float* qh = static_cast<float*>(
      Scratch(kScratchOp2, (chunk * hd + chunk * n_kv + chunk * vd + 48) * sizeof(float)));
  float* sc = qh + chunk * hd + 16;
  float* oh = sc + chunk * n_kv + 16;
  for (int64_t j = 0; j < n_kv; ++j) {
    const float* vr = RowPtr<const float>(a.v, b * n_kv + j) + kvh * vd;
    for (int64_t t = 0; t < vd; ++t) vt[t * n_kv + j] = vr[t];
  }
  const uint8_t* kw =
      reinterpret_cast<const uint8_t*>(RowPtr<const float>(a.k, b * n_kv) + kvh * hd);
  const int64_t k_stride = oxi_tensor_stride(&a.k);
  for (int64_t i0 = 0; i0 < n_q; i0 += chunk) {
    const int64_t cq = std::min(chunk, n_q - i0);
    for (int64_t i = 0; i < cq; ++i) {
      std::memcpy(qh + i * hd, RowPtr<const float>(a.q, b * n_q + i0 + i) + h * hd,
                  hd * sizeof(float));
    }
    MatmulDense(qh, cq, hd, kw, OXI_DTYPE_F32, k_stride, n_kv, sc);
    if (parallel_softmax) {
      Parallel(cq, std::max<int64_t>(1, 16384 / n_kv), [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) SoftmaxRow(sc + r * n_kv, n_kv, a.scale);
      });
    } else {
      for (int64_t r = 0; r < cq; ++r) SoftmaxRow(sc + r * n_kv, n_kv, a.scale);
    }
    MatmulDense(sc, cq, n_kv, reinterpret_cast<const uint8_t*>(vt), OXI_DTYPE_F32, n_kv * 4, vd,
                oh);
    for (int64_t i = 0; i < cq; ++i) {
      std::memcpy(RowPtr<float>(a.out, b * n_q + i0 + i) + h * vd, oh + i * vd, vd * sizeof(float));
    }
  }
}

}  // namespace

bool AllVisible(const oxi_attention_args& a) {
  if (a.causal || a.window > 0 || a.softcap > 0.0f || Present(a.mask)) return false;
  if (Present(a.kv_pos)) {
    const int32_t* kp = RowPtr<const int32_t>(a.kv_pos, 0);
    for (int64_t i = 0; i < a.kv_pos.cols; ++i) {
      if (kp[i] < 0) return false;
    }
  }
  return true;
}

void AttentionGemm(const oxi_attention_args& a, const AttnShape& s) {
  const int64_t heads = s.batch * s.n_heads;
  const int32_t threads = NumThreads();
  if (heads >= threads && threads > 1) {
    const int64_t chunk = ChunkRows(s.n_q, s.n_kv, int64_t{8} << 20);
    Parallel(heads, 1, [&](int64_t h0, int64_t h1) {
      for (int64_t i = h0; i < h1; ++i) {
        AttendHead(a, s, i / s.n_heads, static_cast<int32_t>(i % s.n_heads), chunk, false);
      }
    });
    return;
  }
  const int64_t chunk = ChunkRows(s.n_q, s.n_kv, int64_t{32} << 20);
  for (int64_t i = 0; i < heads; ++i) {
    AttendHead(a, s, i / s.n_heads, static_cast<int32_t>(i % s.n_heads), chunk, true);
  }
}

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer
