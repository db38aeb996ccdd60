#include "plugins/backends/cpu/op_table.h"

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {
namespace {

constexpr uint32_t Bit(int i) { return 1u << i; }

// Indexed by kind; constant-initialised (no code runs at load time).
constexpr OpInfo kOps[OXI_OP_KIND_COUNT] = {
    {},
    {sizeof(oxi_matmul_args), {"x", "w", "bias", "y"}, Bit(2), 0, CheckMatmul, RunMatmul},
    {sizeof(oxi_convert_args), {"src", "dst"}, 0, 0, CheckConvert, RunConvert},
    {sizeof(oxi_get_rows_args), {"table", "ids", "out"}, 0, 0, CheckGetRows, RunGetRows},
    {sizeof(oxi_set_rows_args), {"src", "ids", "dst"}, 0, 0, CheckSetRows, RunSetRows},
    {sizeof(oxi_copy_args), {"src", "dst"}, 0, 0, CheckCopy, RunCopy},
    {sizeof(oxi_fill_args), {"dst"}, 0, 0, CheckFill, RunFill},
    {sizeof(oxi_concat_args), {"a", "b", "out"}, 0, 0, CheckConcat, RunConcat},
    {sizeof(oxi_unary_args), {"x", "out"}, 0, Bit(0), CheckUnary, RunUnary},
    {sizeof(oxi_binary_args), {"a", "b", "out"}, 0, Bit(0) | Bit(1), CheckBinary, RunBinary},
    {sizeof(oxi_scale_args), {"x", "out"}, 0, Bit(0), CheckScale, RunScale},
    {sizeof(oxi_glu_args), {"gate", "up", "out"}, 0, Bit(0) | Bit(1), CheckGlu, RunGlu},
    {sizeof(oxi_softmax_args), {"x", "out"}, 0, Bit(0), CheckSoftmax, RunSoftmax},
    {sizeof(oxi_rms_norm_args), {"x", "weight", "out"}, Bit(1), Bit(0), CheckRmsNorm, RunRmsNorm},
    {sizeof(oxi_l2_norm_args), {"x", "out"}, 0, Bit(0), CheckL2Norm, RunL2Norm},
    {sizeof(oxi_layer_norm_args),
     {"x", "gamma", "beta", "out"},
     Bit(1) | Bit(2),
     Bit(0),
     CheckLayerNorm,
     RunLayerNorm},
    {sizeof(oxi_group_norm_args),
     {"x", "gamma", "beta", "out"},
     Bit(1) | Bit(2),
     Bit(0),
     CheckGroupNorm,
     RunGroupNorm},
    {sizeof(oxi_rope_args), {"x", "pos", "inv_freq", "out"}, 0, Bit(0), CheckRope, RunRope},
    {sizeof(oxi_attention_args),
     {"q", "k", "v", "q_pos", "kv_pos", "mask", "q_span", "kv_span", "out"},
     Bit(3) | Bit(4) | Bit(5) | Bit(6) | Bit(7),
     0,
     CheckAttention,
     RunAttention},
    {sizeof(oxi_conv1d_causal_args),
     {"x", "w", "state", "out"},
     0,
     0,
     CheckConv1dCausal,
     RunConv1dCausal},
    {sizeof(oxi_gated_delta_args),
     {"q", "k", "v", "g", "beta", "state", "out"},
     0,
     0,
     CheckGatedDelta,
     RunGatedDelta},
    {sizeof(oxi_conv2d_args), {"x", "w", "bias", "out"}, Bit(2), 0, CheckConv2d, RunConv2d},
    {sizeof(oxi_upsample_nearest_args),
     {"x", "out"},
     0,
     0,
     CheckUpsampleNearest,
     RunUpsampleNearest},
    {sizeof(oxi_clamp_args), {"x", "out"}, 0, Bit(0), CheckClamp, RunClamp},
    {sizeof(oxi_avg_pool2d_args), {"x", "out"}, 0, 0, CheckAvgPool2d, RunAvgPool2d},
    {sizeof(oxi_local_attention_args),
     {"q", "k", "v", "rel", "out"},
     Bit(3),
     0,
     CheckLocalAttention,
     RunLocalAttention},
};

}  // namespace

const OpInfo* FindOp(int kind) {
  if (kind <= 0 || kind >= OXI_OP_KIND_COUNT) return nullptr;
  return &kOps[kind];
}

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer
