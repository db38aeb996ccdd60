// Operand checks every op shares, and helpers for the ops' own shape checks.
// supports() runs CheckHeader, CheckLayouts and the op's check; execute()
// also CheckMemory (the buffers are this backend's, each tensor inside its
// buffer, outputs overlapping no input unless the op works in place).
// Messages name the op and the operand: "matmul: x has 2048 columns, w has 4096".
#ifndef OXINFER_PLUGINS_BACKENDS_CPU_VALIDATE_H_
#define OXINFER_PLUGINS_BACKENDS_CPU_VALIDATE_H_

#include <cstdint>

#include "oxinfer/ops.h"
#include "plugins/backends/cpu/op_table.h"
#include "plugins/backends/cpu/runtime.h"

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {

// The kind is known and the header matches oxi_op_init's for it (counts,
// outputs read, a struct at least as large as its first version).
int32_t CheckHeader(const Report& r, const oxi_op& op, const OpInfo** info);

// Every present operand: a valid dtype, non-negative rows and cols, whole
// blocks, row_stride 0 or >= the row's bytes and element-aligned, the _X8
// forms packed in whole groups; required operands present.
int32_t CheckLayouts(const Report& r, const oxi_op& op, const OpInfo& info);

// With the buffers: each present operand in a live buffer of this backend,
// element-aligned in memory, inside the buffer; outputs overlap no input
// (nor each other), except an input the op may take in place as the same view.
int32_t CheckMemory(const Report& r, const oxi_op& op, const OpInfo& info);

// ---- for the ops' checks ----
const char* TypeName(const oxi_tensor& t);
inline oxi_dtype TypeOf(const oxi_tensor& t) { return static_cast<oxi_dtype>(t.dtype); }

// "<name> is bf16, not f32".
int32_t ExpectF32(const Report& r, const char* name, const oxi_tensor& t);
int32_t ExpectI32(const Report& r, const char* name, const oxi_tensor& t);
// An index or position vector [1][n].
int32_t ExpectIndexVector(const Report& r, const char* name, const oxi_tensor& t, int64_t n);
// rows x cols exactly: "<name> is 3x7, not 3x8 (<why>)".
int32_t ExpectShape(const Report& r, const char* name, const oxi_tensor& t, int64_t rows,
                    int64_t cols, const char* why);
// out has x's shape.
int32_t ExpectSameShape(const Report& r, const char* name, const oxi_tensor& t, const char* as,
                        const oxi_tensor& like);

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_BACKENDS_CPU_VALIDATE_H_
