#include "core/backend_dispatch.h"

#include <cstring>

namespace oxinfer {
namespace {

const ComposedBackend* Self(void* self) { return static_cast<const ComposedBackend*>(self); }

// The table that serves `field`: the primary when it is new enough to have the
// field and fills it, else the fallback.
#define OXI_PICK(self, field)                                                   \
  const oxi_backend_iface* b = Self(self)->primary();                           \
  if (!(OXI_HAS_FIELD(b, oxi_backend_iface, field) && b->field != nullptr)) {   \
    b = Self(self)->fallback();                                                 \
    if (!(OXI_HAS_FIELD(b, oxi_backend_iface, field) && b->field != nullptr)) { \
      return OXI_UNIMPLEMENTED;                                                 \
    }                                                                           \
  }

int32_t Matmul(void* self, const float* x, int64_t m, int64_t k, const void* w, oxi_dtype wt,
               int64_t n, float* y) {
  OXI_PICK(self, matmul);
  return b->matmul(b->self, x, m, k, w, wt, n, y);
}
int32_t Convert(void* self, const void* src, oxi_dtype st, void* dst, oxi_dtype dt, int64_t rows,
                int64_t k) {
  OXI_PICK(self, convert);
  return b->convert(b->self, src, st, dst, dt, rows, k);
}
int32_t GetRows(void* self, const void* table, oxi_dtype dt, int64_t n_rows, int64_t k,
                const int32_t* ids, int64_t n_ids, float* out) {
  OXI_PICK(self, get_rows);
  return b->get_rows(b->self, table, dt, n_rows, k, ids, n_ids, out);
}
int32_t RmsNorm(void* self, const float* x, const float* w, float off, int64_t rows, int64_t dim,
                float eps, float* out) {
  OXI_PICK(self, rms_norm);
  return b->rms_norm(b->self, x, w, off, rows, dim, eps, out);
}
int32_t Rope(void* self, float* x, int64_t n_tok, int32_t n_heads, int32_t head_dim,
             int32_t rot_dim, const int32_t* pos, const float* inv_freq) {
  OXI_PICK(self, rope);
  return b->rope(b->self, x, n_tok, n_heads, head_dim, rot_dim, pos, inv_freq);
}
int32_t Softmax(void* self, float* x, int64_t rows, int64_t cols, float scale) {
  OXI_PICK(self, softmax);
  return b->softmax(b->self, x, rows, cols, scale);
}
int32_t Unary(void* self, oxi_unary_op op, const float* x, int64_t n, float* out) {
  OXI_PICK(self, unary);
  return b->unary(b->self, op, x, n, out);
}
int32_t Binary(void* self, oxi_binary_op op, const float* a, const float* bb, int64_t n, int64_t nb,
               float* out) {
  OXI_PICK(self, binary);
  return b->binary(b->self, op, a, bb, n, nb, out);
}
int32_t Scale(void* self, const float* x, int64_t n, float s, float bias, float* out) {
  OXI_PICK(self, scale);
  return b->scale(b->self, x, n, s, bias, out);
}
int32_t Attention(void* self, const oxi_attention_params* p) {
  OXI_PICK(self, attention);
  return b->attention(b->self, p);
}

// Asked of the table that serves matmul, whose layouts matter; convert() must
// then produce that layout, which every CPU variant does.
oxi_dtype MatmulWeightDtype(void* self, oxi_dtype dtype, int64_t n, int64_t k) {
  const oxi_backend_iface* b = Self(self)->primary();
  if (!(OXI_HAS_FIELD(b, oxi_backend_iface, matmul) && b->matmul != nullptr)) {
    b = Self(self)->fallback();
  }
  if (!(OXI_HAS_FIELD(b, oxi_backend_iface, matmul_weight_dtype) &&
        b->matmul_weight_dtype != nullptr)) {
    return dtype;
  }
  return b->matmul_weight_dtype(b->self, dtype, n, k);
}

#undef OXI_PICK

}  // namespace

ComposedBackend::ComposedBackend(const oxi_backend_iface* primary,
                                 const oxi_backend_iface* fallback)
    : primary_(primary), fallback_(fallback) {
  std::memset(&table_, 0, sizeof table_);
  table_.struct_size = sizeof table_;
  table_.self = this;
  name_ = primary->device_name ? primary->device_name : "?";
  table_.device_name = name_.c_str();
  table_.matmul = &Matmul;
  table_.convert = &Convert;
  table_.get_rows = &GetRows;
  table_.rms_norm = &RmsNorm;
  table_.rope = &Rope;
  table_.softmax = &Softmax;
  table_.unary = &Unary;
  table_.binary = &Binary;
  table_.scale = &Scale;
  table_.attention = &Attention;
  table_.matmul_weight_dtype = &MatmulWeightDtype;
}

}  // namespace oxinfer
