// Nearest-neighbour upsampling of channels-last images.
#include <algorithm>
#include <cstring>

#include "plugins/backends/cpu/buffer.h"
#include "plugins/backends/cpu/op_table.h"
#include "plugins/backends/cpu/rows.h"
#include "plugins/backends/cpu/runtime.h"
#include "plugins/backends/cpu/validate.h"

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {

int32_t CheckUpsampleNearest(const Report& r, const oxi_op& op) {
  const auto& a = As<oxi_upsample_nearest_args>(op);
  if (a.x.dtype != a.out.dtype || IsX8(TypeOf(a.x))) {
    return r.Fail(OXI_INVALID_ARGUMENT, "x is %s, out %s: one plain dtype", TypeName(a.x),
                  TypeName(a.out));
  }
  if (a.batch < 0 || a.height < 0 || a.width < 0 || a.factor <= 0) {
    return r.Fail(OXI_INVALID_ARGUMENT, "batch %d, %dx%d image, factor %d", a.batch, a.height,
                  a.width, a.factor);
  }
  const int64_t batch = a.batch == 0 ? 1 : a.batch, f = a.factor;
  OXI_CPU_TRY(ExpectShape(r, "x", a.x, batch * a.height * a.width, a.x.cols,
                          "batch x height x width pixels"));
  return ExpectShape(r, "out", a.out, batch * a.height * f * a.width * f, a.x.cols,
                     "the pixels of x, factor^2 times");
}

int32_t RunUpsampleNearest(const Report&, const oxi_op& op) {
  const auto& a = As<oxi_upsample_nearest_args>(op);
  const int64_t f = a.factor, h = a.height, w = a.width, ho = h * f, wo = w * f;
  const size_t row = static_cast<size_t>(oxi_dtype_row_bytes(TypeOf(a.x), a.x.cols));
  if (row == 0) return OXI_OK;
  Parallel(a.out.rows, std::max<int64_t>(1, 65536 / static_cast<int64_t>(row)),
           [&](int64_t r0, int64_t r1) {
             for (int64_t o = r0; o < r1; ++o) {
               const int64_t b = o / (ho * wo), y = o / wo % ho, x = o % wo;
               std::memcpy(RowPtr<uint8_t>(a.out, o),
                           RowPtr<const uint8_t>(a.x, (b * h + y / f) * w + x / f), row);
             }
           });
  return OXI_OK;
}

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer
