// Nearest-neighbour upsampling and average pooling of channels-last images.
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

int32_t CheckAvgPool2d(const Report& r, const oxi_op& op) {
  const auto& a = As<oxi_avg_pool2d_args>(op);
  OXI_CPU_TRY(ExpectF32(r, "x", a.x));
  OXI_CPU_TRY(ExpectF32(r, "out", a.out));
  if (a.batch < 0 || a.height < 0 || a.width < 0 || a.factor <= 0 || a.height % a.factor != 0 ||
      a.width % a.factor != 0) {
    return r.Fail(OXI_INVALID_ARGUMENT,
                  "batch %d, %dx%d image, factor %d (the sides must be multiples of it)", a.batch,
                  a.height, a.width, a.factor);
  }
  const int64_t batch = a.batch == 0 ? 1 : a.batch, f = a.factor;
  OXI_CPU_TRY(ExpectShape(r, "x", a.x, batch * a.height * a.width, a.x.cols,
                          "batch x height x width pixels"));
  return ExpectShape(r, "out", a.out, batch * (a.height / f) * (a.width / f), a.x.cols,
                     "the pixels of x / factor^2");
}

int32_t RunAvgPool2d(const Report&, const oxi_op& op) {
  const auto& a = As<oxi_avg_pool2d_args>(op);
  const int64_t f = a.factor, h = a.height, w = a.width, ho = h / f, wo = w / f, c = a.x.cols;
  const float inv = 1.0f / static_cast<float>(f * f);
  Parallel(a.out.rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(c * f * f, 1)),
           [&](int64_t r0, int64_t r1) {
             for (int64_t o = r0; o < r1; ++o) {
               const int64_t b = o / (ho * wo), y = o / wo % ho, x = o % wo;
               float* out = RowPtr<float>(a.out, o);
               std::fill(out, out + c, 0.0f);
               for (int64_t i = 0; i < f; ++i) {
                 for (int64_t j = 0; j < f; ++j) {
                   const float* in = RowPtr<const float>(a.x, (b * h + y * f + i) * w + x * f + j);
                   for (int64_t k = 0; k < c; ++k) out[k] += in[k];
                 }
               }
               for (int64_t k = 0; k < c; ++k) out[k] *= inv;
             }
           });
  return OXI_OK;
}

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer
