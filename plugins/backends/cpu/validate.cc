#include "plugins/backends/cpu/validate.h"

#include "plugins/backends/cpu/buffer.h"

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {
namespace {

// No tensor has more rows or columns (keeps every product below in range).
constexpr int64_t kMaxDim = int64_t{1} << 40;

using ll = long long;

// Per dtype: bytes per storage unit, elements per unit, the alignment a
// tensor's first byte and row stride need (the element size; 2 for the block
// types, whose scales are f16), and whether rows are interleaved (_X8). A
// table, and faults as codes with the messages written apart: this runs for
// every operand of every op.
struct TypeLayout {
  int64_t unit_bytes, unit_elems, align;
  bool x8;
};
constexpr TypeLayout kLayouts[] = {
    {0, 1, 1, false},   {4, 1, 4, false}, {2, 1, 2, false}, {2, 1, 2, false},  {34, 32, 2, false},
    {18, 32, 2, false}, {8, 1, 8, false}, {8, 1, 8, false}, {4, 1, 4, false},  {2, 1, 2, false},
    {1, 1, 1, false},   {1, 1, 1, false}, {1, 1, 1, false}, {34, 32, 2, true}, {18, 32, 2, true},
};
constexpr int kTypeCount = sizeof kLayouts / sizeof kLayouts[0];
static_assert(kTypeCount == OXI_DTYPE_Q4_0_X8 + 1, "a layout per dtype");

enum Fault { kValid, kDtype, kDims, kBlocks, kStride, kOffset, kX8Rows, kX8Packed, kSpan };

// Bytes of a row of a valid dtype; -1 if not whole blocks.
inline int64_t RowBytes(const TypeLayout& l, int64_t cols) {
  if (l.unit_elems == 1) return cols * l.unit_bytes;
  if (cols % OXI_QK != 0) return -1;
  return cols / OXI_QK * l.unit_bytes;
}

inline Fault LayoutFault(const oxi_tensor& t, uint64_t* extent) {
  if (static_cast<uint32_t>(t.dtype) - 1u >= static_cast<uint32_t>(kTypeCount - 1)) return kDtype;
  const TypeLayout& l = kLayouts[t.dtype];
  if (static_cast<uint64_t>(t.rows) > kMaxDim || static_cast<uint64_t>(t.cols) > kMaxDim) {
    return kDims;
  }
  const int64_t row = RowBytes(l, t.cols);
  if (row < 0) return kBlocks;
  const int64_t mask = l.align - 1;  // a power of two, less one
  if (t.row_stride != 0 && (t.row_stride < row || (t.row_stride & mask) != 0)) return kStride;
  if ((t.offset & static_cast<uint64_t>(mask)) != 0) return kOffset;
  if (l.x8) {
    if (t.rows % OXI_X8_ROWS != 0) return kX8Rows;
    if (t.row_stride != 0 && t.row_stride != row) return kX8Packed;
  }
  if (t.rows == 0 || row == 0) {
    *extent = 0;
    return kValid;
  }
  const int64_t stride = t.row_stride != 0 ? t.row_stride : row;
  int64_t span = 0;
  if (__builtin_mul_overflow(stride, t.rows - 1, &span) ||
      __builtin_add_overflow(span, row, &span)) {
    return kSpan;
  }
  *extent = static_cast<uint64_t>(span);
  return kValid;
}

[[gnu::cold, gnu::noinline]] int32_t LayoutError(const Report& r, const char* name,
                                                 const oxi_tensor& t, Fault f) {
  const oxi_dtype dt = TypeOf(t);
  const char* type = oxi_dtype_name(dt);
  const int64_t row = f > kDims ? RowBytes(kLayouts[t.dtype], t.cols) : 0;
  const int64_t align = f > kDtype ? kLayouts[t.dtype].align : 0;
  switch (f) {
    case kDtype:
      return r.Fail(OXI_INVALID_ARGUMENT, "%s has an invalid dtype (%d)", name, t.dtype);
    case kDims:
      return r.Fail(OXI_INVALID_ARGUMENT, "%s has %lld rows and %lld columns", name, ll(t.rows),
                    ll(t.cols));
    case kBlocks:
      return r.Fail(OXI_INVALID_ARGUMENT, "%s has %lld columns, not whole %s blocks of %d", name,
                    ll(t.cols), type, OXI_QK);
    case kStride:
      return r.Fail(OXI_INVALID_ARGUMENT,
                    "%s has row_stride %lld: rows of %lld bytes need 0 or a multiple of %lld >= "
                    "%lld",
                    name, ll(t.row_stride), ll(row), ll(align), ll(row));
    case kOffset:
      return r.Fail(OXI_INVALID_ARGUMENT, "%s at offset %llu: not a multiple of %lld (%s)", name,
                    static_cast<unsigned long long>(t.offset), ll(align), type);
    case kX8Rows:
      return r.Fail(OXI_INVALID_ARGUMENT, "%s (%s) has %lld rows, not whole groups of %d", name,
                    type, ll(t.rows), OXI_X8_ROWS);
    case kX8Packed:
      return r.Fail(OXI_INVALID_ARGUMENT, "%s (%s) must be packed, has row_stride %lld", name, type,
                    ll(t.row_stride));
    default:
      return r.Fail(OXI_INVALID_ARGUMENT, "%s spans more bytes than a buffer can hold", name);
  }
}

[[gnu::cold, gnu::noinline]] int32_t MemoryError(const Report& r, const char* name,
                                                 const oxi_tensor& t) {
  const HostBuffer* b = AsHostBuffer(t.buffer);
  if (b == nullptr) {
    return r.Fail(OXI_INVALID_ARGUMENT, "%s: buffer %p is %s, not a live buffer of this backend",
                  name, static_cast<void*>(t.buffer), DeadHandleKind(t.buffer));
  }
  if (((reinterpret_cast<uintptr_t>(b->data) + t.offset) &
       static_cast<uint64_t>(kLayouts[t.dtype].align - 1)) != 0) {
    return r.Fail(OXI_INVALID_ARGUMENT, "%s starts at an address that is not %lld-byte aligned",
                  name, ll(kLayouts[t.dtype].align));
  }
  return r.Fail(OXI_OUT_OF_RANGE,
                "%s (%lldx%lld %s at offset %llu) ends past its buffer of %llu bytes", name,
                ll(t.rows), ll(t.cols), TypeName(t), static_cast<unsigned long long>(t.offset),
                static_cast<unsigned long long>(b->size));
}

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// Whether two views of one buffer share a byte. Exact for views with the same
// row stride (column views of one matrix); by their spans otherwise.
bool Overlap(const oxi_tensor& a, uint64_t ea, const oxi_tensor& b, uint64_t eb) {
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

int32_t CheckOperands(const Report& r, const oxi_op& op, const OpInfo& info, bool memory) {
  const int n = op.n_tensors, first_out = op.n_tensors - op.n_outputs;
  uint64_t extents[16];
  bool shared = false;  // an output in the buffer of another operand
  for (int i = 0; i < n; ++i) {
    const oxi_tensor& t = *oxi_op_tensor(&op, i);
    extents[i] = 0;
    if (t.buffer == nullptr) {
      if ((info.optional >> i & 1u) == 0) {
        return r.Fail(OXI_INVALID_ARGUMENT, "%s is required (its buffer is NULL)",
                      info.operands[i]);
      }
      continue;
    }
    const Fault f = LayoutFault(t, &extents[i]);
    if (f != kValid) return LayoutError(r, info.operands[i], t, f);
    if (!memory) continue;
    const HostBuffer* b = AsHostBuffer(t.buffer);
    if (b == nullptr || t.offset > b->size || extents[i] > b->size - t.offset ||
        ((reinterpret_cast<uintptr_t>(b->data) + t.offset) &
         static_cast<uint64_t>(kLayouts[t.dtype].align - 1)) != 0) {
      return MemoryError(r, info.operands[i], t);
    }
    if (i >= first_out) {
      for (int j = 0; j < i; ++j) shared |= oxi_op_tensor(&op, j)->buffer == t.buffer;
    }
  }
  if (!shared) return OXI_OK;
  for (int o = first_out; o < n; ++o) {
    const oxi_tensor& out = *oxi_op_tensor(&op, o);
    for (int i = 0; i < o; ++i) {
      const oxi_tensor& in = *oxi_op_tensor(&op, i);
      if (in.buffer != out.buffer) continue;
      if (o == first_out && (info.in_place >> i & 1u) && SameView(in, out)) continue;
      if (Overlap(in, extents[i], out, extents[o])) {
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
