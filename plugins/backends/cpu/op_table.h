// The operations of ops.h as the CPU backend runs them: per kind, its
// operands' names, which are optional and which may be the output (in
// place), the shape/dtype check that supports() and execute() share, and the
// kernel. Each op family's file defines its Check* and Run* functions.
#ifndef OXINFER_PLUGINS_BACKENDS_CPU_OP_TABLE_H_
#define OXINFER_PLUGINS_BACKENDS_CPU_OP_TABLE_H_

#include <cstdint>

#include "oxinfer/ops.h"
#include "plugins/backends/cpu/runtime.h"

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {

using OpFn = int32_t (*)(const Report& r, const oxi_op& op);

struct OpInfo {
  uint32_t args_size;       // sizeof the argument struct (its first version)
  const char* operands[9];  // names, in order (inputs, then outputs)
  uint32_t optional;        // bit i: operand i may be absent
  uint32_t in_place;        // bit i: input i may be the same view as the first output
  OpFn check;               // dtypes and shapes (pure; also answers supports())
  OpFn run;                 // the kernel, on operands already validated
};

// The entry of an op kind; NULL for a kind this ABI version lacks.
const OpInfo* FindOp(int kind);

// The argument struct of a validated op.
template <typename Args>
const Args& As(const oxi_op& op) {
  return reinterpret_cast<const Args&>(op);
}

#define OXI_CPU_OP(Name)                                  \
  int32_t Check##Name(const Report& r, const oxi_op& op); \
  int32_t Run##Name(const Report& r, const oxi_op& op)

OXI_CPU_OP(Matmul);   // matmul.cc
OXI_CPU_OP(Convert);  // convert_ops.cc
OXI_CPU_OP(Copy);
OXI_CPU_OP(GetRows);  // rows_ops.cc
OXI_CPU_OP(SetRows);
OXI_CPU_OP(Fill);
OXI_CPU_OP(Concat);
OXI_CPU_OP(Unary);  // elementwise.cc
OXI_CPU_OP(Binary);
OXI_CPU_OP(Scale);
OXI_CPU_OP(Glu);
OXI_CPU_OP(Softmax);  // softmax.cc
OXI_CPU_OP(RmsNorm);  // norms.cc
OXI_CPU_OP(L2Norm);
OXI_CPU_OP(LayerNorm);
OXI_CPU_OP(GroupNorm);        // group_norm.cc
OXI_CPU_OP(Rope);             // rope.cc
OXI_CPU_OP(Attention);        // attention.cc
OXI_CPU_OP(Conv1dCausal);     // conv1d.cc
OXI_CPU_OP(GatedDelta);       // gated_delta.cc
OXI_CPU_OP(Conv2d);           // conv2d.cc
OXI_CPU_OP(UpsampleNearest);  // image_ops.cc
OXI_CPU_OP(AvgPool2d);
OXI_CPU_OP(Clamp);           // elementwise.cc
OXI_CPU_OP(LocalAttention);  // local_attention.cc

#undef OXI_CPU_OP

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_BACKENDS_CPU_OP_TABLE_H_
