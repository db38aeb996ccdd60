#include "core/backend_profiler.h"

#include <chrono>
#include <cstring>

#include "absl/strings/str_format.h"

namespace oxinfer {
namespace {

int64_t Now() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

BackendProfiler* P(void* self) { return static_cast<BackendProfiler*>(self); }

int64_t RowBytes(oxi_dtype t, int64_t k) {
  const int64_t b = oxi_dtype_row_bytes(t, k);
  return b < 0 ? 0 : b;
}

// Times one call of the inner table's `field`, counting `bytes`.
#define OXI_PROFILED(op, field, bytes, ...)                                   \
  BackendProfiler* p = P(self);                                               \
  const oxi_backend_iface* in = p->inner();                                   \
  if (!OXI_HAS_FIELD(in, oxi_backend_iface, field) || in->field == nullptr) { \
    return OXI_UNIMPLEMENTED;                                                 \
  }                                                                           \
  const int64_t t0 = Now();                                                   \
  const int32_t rc = in->field(in->self, __VA_ARGS__);                        \
  p->Record(BackendProfiler::op, Now() - t0, (bytes));                        \
  return rc;

int32_t Matmul(void* self, const float* x, int64_t m, int64_t k, const void* w, oxi_dtype wt,
               int64_t n, float* y) {
  OXI_PROFILED(kMatmul, matmul, n * RowBytes(wt, k) + 4 * m * (k + n), x, m, k, w, wt, n, y);
}
int32_t Convert(void* self, const void* src, oxi_dtype st, void* dst, oxi_dtype dt, int64_t rows,
                int64_t k) {
  OXI_PROFILED(kConvert, convert, rows * (RowBytes(st, k) + RowBytes(dt, k)), src, st, dst, dt,
               rows, k);
}
int32_t GetRows(void* self, const void* table, oxi_dtype dt, int64_t n_rows, int64_t k,
                const int32_t* ids, int64_t n_ids, float* out) {
  OXI_PROFILED(kGetRows, get_rows, n_ids * (RowBytes(dt, k) + 4 * k), table, dt, n_rows, k, ids,
               n_ids, out);
}
int32_t RmsNorm(void* self, const float* x, const float* w, float off, int64_t rows, int64_t dim,
                float eps, float* out) {
  OXI_PROFILED(kRmsNorm, rms_norm, 8 * rows * dim + 4 * dim, x, w, off, rows, dim, eps, out);
}
int32_t Rope(void* self, float* x, int64_t n_tok, int32_t n_heads, int32_t head_dim,
             int32_t rot_dim, const int32_t* pos, const float* inv_freq) {
  OXI_PROFILED(kRope, rope, 8 * n_tok * n_heads * head_dim, x, n_tok, n_heads, head_dim, rot_dim,
               pos, inv_freq);
}
int32_t Softmax(void* self, float* x, int64_t rows, int64_t cols, float scale) {
  OXI_PROFILED(kSoftmax, softmax, 8 * rows * cols, x, rows, cols, scale);
}
int32_t Unary(void* self, oxi_unary_op op, const float* x, int64_t n, float* out) {
  OXI_PROFILED(kUnary, unary, 8 * n, op, x, n, out);
}
int32_t Binary(void* self, oxi_binary_op op, const float* a, const float* b, int64_t n, int64_t nb,
               float* out) {
  OXI_PROFILED(kBinary, binary, 8 * n + 4 * nb, op, a, b, n, nb, out);
}
int32_t Scale(void* self, const float* x, int64_t n, float s, float b, float* out) {
  OXI_PROFILED(kScale, scale, 8 * n, x, n, s, b, out);
}
int32_t Attention(void* self, const oxi_attention_params* a) {
  const int64_t kv = a->n_kv * a->n_kv_heads * (a->head_dim + a->v_head_dim);
  const int64_t q = a->n_q * a->n_heads * (a->head_dim + a->v_head_dim);
  OXI_PROFILED(kAttention, attention, 4 * (kv + q), a);
}

#undef OXI_PROFILED

// A load-time query, not timed.
oxi_dtype MatmulWeightDtype(void* self, oxi_dtype dtype, int64_t n, int64_t k) {
  const oxi_backend_iface* in = P(self)->inner();
  if (!OXI_HAS_FIELD(in, oxi_backend_iface, matmul_weight_dtype) ||
      in->matmul_weight_dtype == nullptr) {
    return dtype;
  }
  return in->matmul_weight_dtype(in->self, dtype, n, k);
}

}  // namespace

BackendProfiler::BackendProfiler(const oxi_backend_iface* inner) : inner_(inner) {
  std::memset(&table_, 0, sizeof table_);
  table_.struct_size = sizeof table_;
  table_.self = this;
  table_.device_name = inner->device_name;
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

void BackendProfiler::Record(Op op, int64_t nanos, int64_t bytes) {
  Stat& s = stats_[op];
  ++s.calls;
  s.nanos += nanos;
  s.bytes += bytes;
}

void BackendProfiler::Reset() { stats_ = {}; }

const char* BackendProfiler::OpName(Op op) {
  static const char* kNames[kNumOps] = {"matmul",  "convert", "get_rows", "rms_norm", "rope",
                                        "softmax", "unary",   "binary",   "scale",    "attention"};
  return kNames[op];
}

std::string BackendProfiler::Report() const {
  int64_t total = 0;
  for (const Stat& s : stats_) total += s.nanos;
  std::string out =
      absl::StrFormat("%-10s %8s %10s %6s %8s\n", "op", "calls", "ms", "time", "GB/s");
  for (int i = 0; i < kNumOps; ++i) {
    const Stat& s = stats_[i];
    if (s.calls == 0) continue;
    absl::StrAppendFormat(&out, "%-10s %8d %10.2f %5.1f%% %8.2f\n", OpName(static_cast<Op>(i)),
                          s.calls, s.nanos / 1e6, total ? 100.0 * s.nanos / total : 0.0,
                          s.nanos ? static_cast<double>(s.bytes) / s.nanos : 0.0);
  }
  absl::StrAppendFormat(&out, "%-10s %8s %10.2f  (time inside backend ops)\n", "total", "",
                        total / 1e6);
  return out;
}

}  // namespace oxinfer
