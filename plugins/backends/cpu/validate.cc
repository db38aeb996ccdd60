#include "plugins/backends/cpu/validate.h"

#include "plugins/backends/cpu/buffer.h"

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {
namespace {

// No tensor has more rows or columns (keeps every product below in range).
constexpr int64_t kMaxDim = int64_t{1} << 40;

using ll = long long;

// The alignment a tensor's first byte and row stride need: the element size
// (2 for the block types, whose scales are f16).
int64_t Alignment(oxi_dtype t) {
  const int64_t b = oxi_dtype_block_bytes(t);
  return oxi_dtype_block_elems(t) > 1 ? 2 : b;
}

// Bytes from the first to one past the last byte (CheckLayouts ran).
bool ExtentOf(const oxi_tensor& t, uint64_t* out) {
  const int64_t row = oxi_dtype_row_bytes(TypeOf(t), t.cols);
  if (t.rows == 0 || row == 0) {
    *out = 0;
    return true;
  }
  const int64_t stride = t.row_stride != 0 ? t.row_stride : row;
  int64_t span = 0;
  if (__builtin_mul_overflow(stride, t.rows - 1, &span) ||
      __builtin_add_overflow(span, row, &span)) {
    return false;
  }
  *out = static_cast<uint64_t>(span);
  return true;
}

int32_t CheckLayout(const Report& r, const char* name, const oxi_tensor& t) {
  const oxi_dtype dt = TypeOf(t);
  if (oxi_dtype_block_bytes(dt) <= 0) {
    return r.Fail(OXI_INVALID_ARGUMENT, "%s has an invalid dtype (%d)", name, t.dtype);
  }
  if (t.rows < 0 || t.cols < 0 || t.rows > kMaxDim || t.cols > kMaxDim) {
    return r.Fail(OXI_INVALID_ARGUMENT, "%s has %lld rows and %lld columns", name, ll(t.rows),
                  ll(t.cols));
  }
  const int64_t row = oxi_dtype_row_bytes(dt, t.cols);
  if (row < 0) {
    return r.Fail(OXI_INVALID_ARGUMENT, "%s has %lld columns, not whole %s blocks of %d", name,
                  ll(t.cols), oxi_dtype_name(dt), OXI_QK);
  }
  const int64_t align = Alignment(dt);
  if (t.row_stride != 0 && (t.row_stride < row || t.row_stride % align != 0)) {
    return r.Fail(OXI_INVALID_ARGUMENT,
                  "%s has row_stride %lld: rows of %lld bytes need 0 or a multiple of %lld >= %lld",
                  name, ll(t.row_stride), ll(row), ll(align), ll(row));
  }
  if (t.offset % static_cast<uint64_t>(align) != 0) {
    return r.Fail(OXI_INVALID_ARGUMENT, "%s at offset %llu: not a multiple of %lld (%s)", name,
                  static_cast<unsigned long long>(t.offset), ll(align), oxi_dtype_name(dt));
  }
  if (oxi_dtype_is_x8(dt)) {
    if (t.rows % OXI_X8_ROWS != 0) {
      return r.Fail(OXI_INVALID_ARGUMENT, "%s (%s) has %lld rows, not whole groups of %d", name,
                    oxi_dtype_name(dt), ll(t.rows), OXI_X8_ROWS);
    }
    if (t.row_stride != 0 && t.row_stride != row) {
      return r.Fail(OXI_INVALID_ARGUMENT, "%s (%s) must be packed, has row_stride %lld", name,
                    oxi_dtype_name(dt), ll(t.row_stride));
    }
  }
  uint64_t extent = 0;
  if (!ExtentOf(t, &extent)) {
    return r.Fail(OXI_INVALID_ARGUMENT, "%s spans more bytes than a buffer can hold", name);
  }
  return OXI_OK;
}

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// Whether two views of one buffer share a byte. Exact for views with the same
// row stride (column views of one matrix); by their spans otherwise.
bool Overlap(const oxi_tensor& a, const oxi_tensor& b) {
  uint64_t ea = 0, eb = 0;
  ExtentOf(a, &ea);
  ExtentOf(b, &eb);
  if (ea == 0 || eb == 0) return false;
  if (a.offset + ea <= b.offset || b.offset + eb <= a.offset) return false;
  const int64_t sa = oxi_tensor_stride(&a), sb = oxi_tensor_stride(&b);
  if (sa != sb || sa <= 0) return true;
  const int64_t wa = oxi_dtype_row_bytes(TypeOf(a), a.cols);
  const int64_t wb = oxi_dtype_row_bytes(TypeOf(b), b.cols);
  // Rows i of a and j of b share a byte iff (d - wa) < (i - j) * s < d + wb.
  const int64_t d = static_cast<int64_t>(b.offset) - static_cast<int64_t>(a.offset);
  int64_t lo = FloorDiv(d - wa, sa) + 1;
  int64_t hi = -FloorDiv(-(d + wb), sa) - 1;  // ceil((d + wb) / s) - 1
  if (lo < -(b.rows - 1)) lo = -(b.rows - 1);
  if (hi > a.rows - 1) hi = a.rows - 1;
  return lo <= hi;
}

}  // namespace

const char* TypeName(const oxi_tensor& t) { return oxi_dtype_name(TypeOf(t)); }

int32_t CheckHeader(const Report& r, const oxi_op& op, const OpInfo** info) {
  const OpInfo* in = FindOp(op.kind);
  if (in == nullptr) {
    return r.Fail(OXI_UNIMPLEMENTED, "op kind %d is not an operation of ABI %d.%d", op.kind,
                  OXI_ABI_MAJOR, OXI_ABI_MINOR);
  }
  oxi_op want = {};
  oxi_op_init(&want, sizeof want, op.kind);
  if (op.n_tensors != want.n_tensors || op.n_outputs != want.n_outputs ||
      op.outputs_read != want.outputs_read) {
    return r.Fail(OXI_INVALID_ARGUMENT,
                  "the header counts %d tensors, %d outputs, outputs_read %u; the op has %d, %d, "
                  "%u (use oxi_op_init)",
                  op.n_tensors, op.n_outputs, op.outputs_read, want.n_tensors, want.n_outputs,
                  want.outputs_read);
  }
  if (op.struct_size < in->args_size) {
    return r.Fail(OXI_INVALID_ARGUMENT, "struct_size %u is smaller than the op's %u bytes",
                  op.struct_size, in->args_size);
  }
  *info = in;
  return OXI_OK;
}

int32_t CheckLayouts(const Report& r, const oxi_op& op, const OpInfo& info) {
  for (int i = 0; i < op.n_tensors; ++i) {
    const oxi_tensor& t = *oxi_op_tensor(&op, i);
    if (t.buffer == nullptr) {
      if ((info.optional >> i & 1u) == 0) {
        return r.Fail(OXI_INVALID_ARGUMENT, "%s is required (its buffer is NULL)",
                      info.operands[i]);
      }
      continue;
    }
    OXI_CPU_TRY(CheckLayout(r, info.operands[i], t));
  }
  return OXI_OK;
}

int32_t CheckMemory(const Report& r, const oxi_op& op, const OpInfo& info) {
  const int n = op.n_tensors, first_out = op.n_tensors - op.n_outputs;
  for (int i = 0; i < n; ++i) {
    const oxi_tensor& t = *oxi_op_tensor(&op, i);
    if (t.buffer == nullptr) continue;
    const char* name = info.operands[i];
    const HostBuffer* b = AsHostBuffer(t.buffer);
    if (b == nullptr) {
      return r.Fail(OXI_INVALID_ARGUMENT, "%s: buffer %p is %s, not a live buffer of this backend",
                    name, static_cast<void*>(t.buffer), DeadHandleKind(t.buffer));
    }
    uint64_t extent = 0;
    ExtentOf(t, &extent);
    if (t.offset > b->size || extent > b->size - t.offset) {
      return r.Fail(OXI_OUT_OF_RANGE,
                    "%s (%lldx%lld %s at offset %llu) ends past its buffer of %llu bytes", name,
                    ll(t.rows), ll(t.cols), TypeName(t), static_cast<unsigned long long>(t.offset),
                    static_cast<unsigned long long>(b->size));
    }
    const uint64_t align = static_cast<uint64_t>(Alignment(TypeOf(t)));
    if ((reinterpret_cast<uintptr_t>(b->data) + t.offset) % align != 0) {
      return r.Fail(OXI_INVALID_ARGUMENT, "%s starts at an address that is not %llu-byte aligned",
                    name, static_cast<unsigned long long>(align));
    }
  }
  for (int o = first_out; o < n; ++o) {
    const oxi_tensor& out = *oxi_op_tensor(&op, o);
    for (int i = 0; i < n; ++i) {
      if (i == o) continue;
      const oxi_tensor& in = *oxi_op_tensor(&op, i);
      if (in.buffer == nullptr || in.buffer != out.buffer) continue;
      if (i < first_out && o == first_out && (info.in_place >> i & 1u) && SameView(in, out)) {
        continue;
      }
      if (i > o && i >= first_out) continue;  // each pair of outputs once
      if (Overlap(in, out)) {
        return r.Fail(OXI_INVALID_ARGUMENT, "%s overlaps %s%s", info.operands[o], info.operands[i],
                      (info.in_place >> i & 1u) ? " (in place needs the same view)" : "");
      }
    }
  }
  return OXI_OK;
}

int32_t ExpectF32(const Report& r, const char* name, const oxi_tensor& t) {
  if (t.dtype == OXI_DTYPE_F32) return OXI_OK;
  return r.Fail(OXI_INVALID_ARGUMENT, "%s is %s, not f32", name, TypeName(t));
}

int32_t ExpectI32(const Report& r, const char* name, const oxi_tensor& t) {
  if (t.dtype == OXI_DTYPE_I32) return OXI_OK;
  return r.Fail(OXI_INVALID_ARGUMENT, "%s is %s, not i32", name, TypeName(t));
}

int32_t ExpectIndexVector(const Report& r, const char* name, const oxi_tensor& t, int64_t n) {
  OXI_CPU_TRY(ExpectI32(r, name, t));
  if (t.rows == 1 && t.cols == n) return OXI_OK;
  if (n == 0 && t.rows * t.cols == 0) return OXI_OK;
  return r.Fail(OXI_INVALID_ARGUMENT, "%s is %lldx%lld, not 1x%lld", name, ll(t.rows), ll(t.cols),
                ll(n));
}

int32_t ExpectShape(const Report& r, const char* name, const oxi_tensor& t, int64_t rows,
                    int64_t cols, const char* why) {
  if (t.rows == rows && t.cols == cols) return OXI_OK;
  return r.Fail(OXI_INVALID_ARGUMENT, "%s is %lldx%lld, not %lldx%lld (%s)", name, ll(t.rows),
                ll(t.cols), ll(rows), ll(cols), why);
}

int32_t ExpectSameShape(const Report& r, const char* name, const oxi_tensor& t, const char* as,
                        const oxi_tensor& like) {
  if (t.rows == like.rows && t.cols == like.cols) return OXI_OK;
  return r.Fail(OXI_INVALID_ARGUMENT, "%s is %lldx%lld, %s is %lldx%lld", name, ll(t.rows),
                ll(t.cols), as, ll(like.rows), ll(like.cols));
}

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer
