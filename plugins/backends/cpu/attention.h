// Attention (ops.h, oxi_attention_args): the general kernel (attention.cc),
// one query row at a time against its visible slots (decode), the long
// non-causal fast path (attention_gemm.cc): scores by GEMM, softmax, GEMM,
// and the blocked prefill path for everything else (attention_blocked.cc).
#ifndef OXINFER_PLUGINS_BACKENDS_CPU_ATTENTION_H_
#define OXINFER_PLUGINS_BACKENDS_CPU_ATTENTION_H_

#include <cstdint>

#include "oxinfer/ops.h"

#ifndef OXI_CPU_NS
#error "OXI_CPU_NS must name the variant (scalar, avx2, avx512, neon)"
#endif

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {

struct AttnShape {
  int64_t batch, n_q, n_kv;
  int32_t n_heads, n_kv_heads, head_dim, v_head_dim;
};

inline AttnShape ShapeOf(const oxi_attention_args& a) {
  const int64_t batch = a.batch == 0 ? 1 : a.batch;
  return AttnShape{batch,        a.q.rows / batch, a.k.rows / batch, a.n_heads,
                   a.n_kv_heads, a.head_dim,       a.v_head_dim};
}

// Whether every query sees every slot with plain scores (no causality,
// window, mask or softcap, no empty slots): then the GEMM path applies.
bool AllVisible(const oxi_attention_args& a);
// The GEMM path, for AllVisible ops with enough queries and slots.
void AttentionGemm(const oxi_attention_args& a, const AttnShape& s);
// Prefill with any visibility (attention_blocked.cc): query blocks against
// slot tiles, online softmax, small GEMMs.
void AttentionBlocked(const oxi_attention_args& a, const AttnShape& s);

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_BACKENDS_CPU_ATTENTION_H_
