// oxinfer SDK: how a model plugin computes through the backend it was opened
// with. Memory is the backend's (Buffer); tensors are views into it (Tensor);
// every operation of ops.h has a method on Compute. Nothing here touches
// device memory from the host: data goes in and out through Write / Read.
//
//   sdk::Compute cx(params.backend);
//   OXI_ASSIGN_OR_RETURN(sdk::OwnedTensor w, cx.LoadWeight(weights, t, n, k, OXI_DTYPE_Q4_0));
//   sdk::Scratch scratch(&cx);                       // per-forward activations
//   OXI_ASSIGN_OR_RETURN(sdk::Tensor x, scratch.F32(m, k));
//   OXI_RETURN_IF_ERROR(cx.Write(x, host_rows));
//   OXI_RETURN_IF_ERROR(cx.MatMul(x, w, y));
//   OXI_RETURN_IF_ERROR(cx.Read(y, host_out));
#ifndef OXINFER_SDK_COMPUTE_HPP_
#define OXINFER_SDK_COMPUTE_HPP_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "oxinfer/backend_abi.h"
#include "oxinfer/dtype.h"
#include "oxinfer/ops.h"
#include "oxinfer/sdk/common.hpp"
#include "oxinfer/sdk/status.hpp"
#include "oxinfer/sdk/weights.hpp"

namespace oxinfer {
namespace sdk {

// A matrix view into a backend buffer (oxi_tensor) with view arithmetic.
struct Tensor : public oxi_tensor {
  Tensor() : oxi_tensor() {}
  Tensor(oxi_buffer* b, uint64_t off, oxi_dtype dt, int64_t r, int64_t c, int64_t stride = 0)
      : oxi_tensor() {
    buffer = b;
    offset = off;
    dtype = dt;
    rows = r;
    cols = c;
    row_stride = stride;
  }

  bool empty() const { return buffer == nullptr; }
  oxi_dtype type() const { return static_cast<oxi_dtype>(dtype); }
  int64_t row_bytes() const { return oxi_dtype_row_bytes(type(), cols); }
  int64_t stride() const { return oxi_tensor_stride(this); }
  bool packed() const { return row_stride == 0 || row_stride == row_bytes(); }
  int64_t numel() const { return rows * cols; }
  // Bytes from the first to one past the last byte it touches.
  int64_t extent() const { return oxi_tensor_extent(this); }

  // Rows [r0, r0 + n). For the _X8 types, whole groups of 8 rows.
  Tensor Rows(int64_t r0, int64_t n) const {
    Tensor t = *this;
    t.offset += static_cast<uint64_t>(r0 * stride());
    t.rows = n;
    return t;
  }
  Tensor Row(int64_t r) const { return Rows(r, 1); }
  // Columns [c0, c0 + n) of every row (element types, not blocks).
  Tensor Cols(int64_t c0, int64_t n) const {
    Tensor t = *this;
    t.offset += static_cast<uint64_t>(c0 * oxi_dtype_block_bytes(type()));
    t.cols = n;
    t.row_stride = stride();
    return t;
  }
  // The same elements as rows x cols (a packed view only): [n][heads * d]
  // -> [n * heads][d].
  Tensor Reshape(int64_t r, int64_t c) const {
    Tensor t = *this;
    t.rows = r;
    t.cols = c;
    t.row_stride = 0;
    return t;
  }
};

// Backend memory, freed on destruction. Move-only.
class Buffer {
 public:
  Buffer() = default;
  Buffer(const oxi_backend_iface* be, oxi_buffer* b, uint64_t size) : be_(be), b_(b), size_(size) {}
  Buffer(Buffer&& o) noexcept : be_(o.be_), b_(o.b_), size_(o.size_) { o.b_ = nullptr; }
  Buffer& operator=(Buffer&& o) noexcept {
    if (this != &o) {
      Reset();
      be_ = o.be_;
      b_ = o.b_;
      size_ = o.size_;
      o.b_ = nullptr;
    }
    return *this;
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() { Reset(); }

  void Reset() {
    if (b_ != nullptr && be_ != nullptr && be_->buffer_free != nullptr)
      be_->buffer_free(be_->self, b_);
    b_ = nullptr;
    size_ = 0;
  }
  oxi_buffer* get() const { return b_; }
  uint64_t size() const { return size_; }
  explicit operator bool() const { return b_ != nullptr; }
  // The whole buffer as a [1][size] U8 tensor, or as rows x cols of dtype.
  Tensor View(oxi_dtype dtype, int64_t rows, int64_t cols, uint64_t offset = 0) const {
    return Tensor(b_, offset, dtype, rows, cols);
  }

 private:
  const oxi_backend_iface* be_ = nullptr;
  oxi_buffer* b_ = nullptr;
  uint64_t size_ = 0;
};

// A tensor with its own buffer (a weight, a cache, a state).
struct OwnedTensor {
  Buffer buffer;
  Tensor t;
  operator const Tensor&() const { return t; }  // NOLINT: used where a Tensor is
  const Tensor& operator*() const { return t; }
  const Tensor* operator->() const { return &t; }
};

// What LoadWeight did with the matrices asked for in a block type (Q8_0 /
// Q4_0): shared by the copies of one Compute, so a model sees its whole load.
struct QuantStats {
  int64_t quantised = 0;  // converted to the block type asked for
  int64_t as_stored = 0;  // already blocks of it (a --save-quantized folder, a GGUF file)
  int64_t kept = 0;       // kept as stored: the width does not fit the blocks
};

class Compute {
 public:
  Compute() = default;
  // log_name: the plugin name LoadWeight's log lines carry.
  explicit Compute(const oxi_backend_iface* backend, const char* log_name = "model")
      : be_(backend), log_name_(log_name) {}

  const QuantStats& quant_stats() const { return *quant_stats_; }
  // "quantised N matrices to Q8_0, M kept as stored (...)" after a load that
  // asked for a block type ("N matrices already Q8_0 in the checkpoint" for
  // those stored that way); empty otherwise.
  std::string QuantSummary(oxi_dtype want) const {
    if (oxi_dtype_block_elems(want) <= 1) return std::string();
    const QuantStats& q = *quant_stats_;
    std::string s;
    if (q.quantised > 0 || q.as_stored == 0) {
      s = StrCat("quantised ", q.quantised, " matrices to ", oxi_dtype_name(want));
    }
    if (q.as_stored > 0) {
      s += StrCat(s.empty() ? "" : ", ", q.as_stored, " matrices already ", oxi_dtype_name(want),
                  " in the checkpoint");
    }
    s += StrCat(", ", q.kept, " kept as stored");
    if (q.kept > 0) {
      s += StrCat(" (their width is not a multiple of ", oxi_dtype_block_elems(want), ")");
    }
    return s;
  }

  const oxi_backend_iface* backend() const { return be_; }
  std::string device() const {
    return be_ != nullptr && be_->device_name != nullptr ? be_->device_name : "?";
  }

  // ---- memory ----
  StatusOr<Buffer> Alloc(uint64_t bytes, uint32_t flags = 0) const {
    if (be_ == nullptr || be_->buffer_alloc == nullptr) {
      return FailedPreconditionError("no backend to allocate from");
    }
    oxi_buffer* b = nullptr;
    char error[512] = {};
    const int32_t rc =
        be_->buffer_alloc(be_->self, bytes < 64 ? 64 : bytes, flags, &b, error, sizeof error);
    if (rc != OXI_OK || b == nullptr) {
      return Status(rc == OXI_OK ? OXI_INTERNAL : rc,
                    StrCat("backend ", device(), ": allocating ", bytes,
                           " bytes: ", error[0] ? error : "failed"));
    }
    return Buffer(be_, b, bytes);
  }
  // Host memory used in place (kept alive by the caller until the buffer is
  // freed); UNIMPLEMENTED where the backend cannot.
  StatusOr<Buffer> Wrap(const void* host, uint64_t bytes, uint32_t flags = 0) const {
    if (be_ == nullptr || be_->buffer_wrap == nullptr) {
      return UnimplementedError("the backend cannot use host memory in place");
    }
    oxi_buffer* b = nullptr;
    char error[512] = {};
    const int32_t rc = be_->buffer_wrap(be_->self, host, bytes, flags, &b, error, sizeof error);
    if (rc != OXI_OK || b == nullptr) {
      return Status(rc == OXI_OK ? OXI_INTERNAL : rc, error[0] ? error : "buffer_wrap failed");
    }
    return Buffer(be_, b, bytes);
  }
  // A new packed tensor in a buffer of its own.
  StatusOr<OwnedTensor> NewTensor(oxi_dtype dtype, int64_t rows, int64_t cols,
                                  uint32_t flags = 0) const {
    const int64_t row = oxi_dtype_row_bytes(dtype, cols);
    if (row < 0 || rows < 0) {
      return InvalidArgumentError(
          StrCat("a ", oxi_dtype_name(dtype), " tensor cannot have ", cols, " columns"));
    }
    OwnedTensor o;
    OXI_ASSIGN_OR_RETURN(o.buffer, Alloc(static_cast<uint64_t>(row * rows), flags));
    o.t = Tensor(o.buffer.get(), 0, dtype, rows, cols);
    return o;
  }

  // Host rows -> tensor: `src` holds dst.rows rows of dst.row_bytes() bytes.
  Status Write(const Tensor& dst, const void* src) const {
    const int64_t row = dst.row_bytes();
    if (dst.packed()) return WriteBytes(dst.buffer, dst.offset, src, row * dst.rows);
    for (int64_t r = 0; r < dst.rows; ++r) {
      OXI_RETURN_IF_ERROR(WriteBytes(dst.buffer, dst.offset + r * dst.row_stride,
                                     static_cast<const uint8_t*>(src) + r * row, row));
    }
    return OkStatus();
  }
  // Tensor -> host rows (packed). Waits for the work that writes it.
  Status Read(const Tensor& src, void* dst) const {
    const int64_t row = src.row_bytes();
    if (src.packed()) return ReadBytes(src.buffer, src.offset, dst, row * src.rows);
    for (int64_t r = 0; r < src.rows; ++r) {
      OXI_RETURN_IF_ERROR(ReadBytes(src.buffer, src.offset + r * src.row_stride,
                                    static_cast<uint8_t*>(dst) + r * row, row));
    }
    return OkStatus();
  }
  Status WriteBytes(oxi_buffer* dst, uint64_t offset, const void* src, int64_t size) const {
    if (size <= 0) return OkStatus();
    char error[512] = {};
    return FromOxi(be_->buffer_write(be_->self, dst, offset, src, static_cast<uint64_t>(size),
                                     error, sizeof error),
                   error, StrCat("backend ", device(), ": buffer_write"));
  }
  Status ReadBytes(oxi_buffer* src, uint64_t offset, void* dst, int64_t size) const {
    if (size <= 0) return OkStatus();
    char error[512] = {};
    return FromOxi(be_->buffer_read(be_->self, src, offset, dst, static_cast<uint64_t>(size), error,
                                    sizeof error),
                   error, StrCat("backend ", device(), ": buffer_read"));
  }
  Status CopyBytes(oxi_buffer* dst, uint64_t dst_offset, oxi_buffer* src, uint64_t src_offset,
                   int64_t size) const {
    if (size <= 0) return OkStatus();
    char error[512] = {};
    return FromOxi(be_->buffer_copy(be_->self, dst, dst_offset, src, src_offset,
                                    static_cast<uint64_t>(size), error, sizeof error),
                   error, StrCat("backend ", device(), ": buffer_copy"));
  }
  Status Sync() const {
    if (be_ == nullptr || be_->synchronize == nullptr) return OkStatus();
    char error[512] = {};
    return FromOxi(be_->synchronize(be_->self, error, sizeof error), error,
                   StrCat("backend ", device(), ": synchronize"));
  }

  // The storage the backend's matmul prefers for a [rows][cols] weight wanted
  // as `dtype`; only a layout of the same values counts (Q4_0 -> Q4_0_X8).
  oxi_dtype PreferredWeightDtype(oxi_dtype dtype, int64_t rows, int64_t cols) const {
    if (be_ == nullptr || be_->preferred_weight_dtype == nullptr) return dtype;
    const oxi_dtype got = be_->preferred_weight_dtype(be_->self, dtype, rows, cols);
    return oxi_dtype_plain(got) == oxi_dtype_plain(dtype) ? got : dtype;
  }

  // A checkpoint matrix [rows][cols] resident on the backend, held as `want`
  // (OXI_DTYPE_INVALID: as stored; Q8_0 / Q4_0: quantised, in the layout the
  // backend prefers). Used in place where the backend can (a mapped file;
  // safetensors aligns tensors to their element size at best, and the backend's
  // buffer_wrap refuses what it cannot use); otherwise copied or converted, and
  // the stored bytes handed back to the OS. Stored blocks (a GGUF file's, a
  // --save-quantized folder's Q4_0_X8...) stay blocks of their precision, in
  // the backend's layout: as they are when it is the stored one (no
  // conversion), else re-laid (x8 <-> plain: the same bytes, moved).
  // When the checkpoint is recorded (Weights::RecordInto) the held form is
  // reported under t's name, or `record_as` (a second form of one tensor).
  StatusOr<OwnedTensor> LoadWeight(const Weights& weights, const oxi_weight_tensor* t, int64_t rows,
                                   int64_t cols, oxi_dtype want = OXI_DTYPE_INVALID,
                                   bool in_place = true, const char* record_as = nullptr) const {
    OXI_ASSIGN_OR_RETURN(OwnedTensor out, LoadHeld(weights, t, rows, cols, want, in_place));
    OXI_RETURN_IF_ERROR(RecordHeld(weights, t, out.t, record_as));
    return out;
  }
  // --save-quantized: `held` (what LoadWeight made of t) reported with t's
  // shape under `name` (null: t's), read back where the backend's memory is
  // not the host's.
  Status RecordHeld(const Weights& weights, const oxi_weight_tensor* t, const Tensor& held,
                    const char* name = nullptr) const {
    WeightRecorder* r = weights.recorder();
    if (r == nullptr) return OkStatus();
    oxi_weight_tensor rec = *t;
    rec.name = name != nullptr ? name : t->name;
    rec.dtype = held.dtype;
    rec.size = static_cast<uint64_t>(held.rows * held.row_bytes());
    OXI_RETURN_IF_ERROR(Sync());
    std::vector<uint8_t> copy;
    const uint8_t* host = nullptr;
    if (be_->buffer_host_ptr != nullptr && held.packed()) {
      host = static_cast<const uint8_t*>(be_->buffer_host_ptr(be_->self, held.buffer));
    }
    if (host != nullptr) {
      rec.data = host + held.offset;
    } else {
      copy.resize(rec.size);
      OXI_RETURN_IF_ERROR(Read(held, copy.data()));
      rec.data = copy.data();
    }
    return r->Record(rec);
  }

 private:
  StatusOr<OwnedTensor> LoadHeld(const Weights& weights, const oxi_weight_tensor* t, int64_t rows,
                                 int64_t cols, oxi_dtype want, bool in_place) const {
    const oxi_dtype stored = static_cast<oxi_dtype>(t->dtype);
    if (want == OXI_DTYPE_INVALID) want = oxi_dtype_plain(stored);
    if (oxi_dtype_block_elems(want) > 1) {
      if (oxi_dtype_row_bytes(want, cols) < 0) {
        // The row length does not fit the blocks: keep as stored, and say so
        // (a user asking for --quant would otherwise not know).
        ++quant_stats_->kept;
        Log(Host(), OXI_LOG_INFO, log_name_,
            StrCat(t->name, " [", rows, " x ", cols, "] kept as ", oxi_dtype_name(stored), ", not ",
                   oxi_dtype_name(want), ": its width ", cols, " is not a multiple of ",
                   oxi_dtype_block_elems(want)));
        want = stored;
      } else {
        want = oxi_dtype_plain(want);
        ++(oxi_dtype_plain(stored) == want ? quant_stats_->as_stored : quant_stats_->quantised);
        const oxi_dtype layout = PreferredWeightDtype(want, rows, cols);
        if (!oxi_dtype_is_x8(layout) || rows % OXI_X8_ROWS == 0) want = layout;
      }
    }
    const int64_t stored_bytes = oxi_dtype_row_bytes(stored, cols) * rows;
    if (stored_bytes < 0 || static_cast<uint64_t>(stored_bytes) != t->size) {
      return InvalidArgumentError(StrCat(weights.source(), ": tensor ", t->name, " holds ", t->size,
                                         " bytes, not ", rows, "x", cols, " ",
                                         oxi_dtype_name(stored)));
    }
    // Elements at their natural alignment (blocks: their f16 scale's).
    const int64_t align = oxi_dtype_block_elems(stored) == 1 ? oxi_dtype_block_bytes(stored) : 2;
    const bool aligned = align > 0 && reinterpret_cast<uintptr_t>(t->data) % align == 0;
    OwnedTensor out;
    if (want == stored) {
      if (in_place && aligned) {
        auto wrapped = Wrap(t->data, t->size, OXI_BUFFER_WEIGHTS);
        if (wrapped.ok()) {
          out.buffer = std::move(*wrapped);
          out.t = Tensor(out.buffer.get(), 0, stored, rows, cols);
          return out;
        }
      }
      OXI_ASSIGN_OR_RETURN(out, NewTensor(stored, rows, cols, OXI_BUFFER_WEIGHTS));
      OXI_RETURN_IF_ERROR(Write(out.t, t->data));
      weights.Release(t);
      return out;
    }
    // Convert: the stored bytes in place (or a temporary copy), then CONVERT.
    Buffer src;
    auto wrapped = Wrap(t->data, t->size, 0);
    if (wrapped.ok()) {
      src = std::move(*wrapped);
    } else {
      OXI_ASSIGN_OR_RETURN(src, Alloc(t->size));
      OXI_RETURN_IF_ERROR(WriteBytes(src.get(), 0, t->data, static_cast<int64_t>(t->size)));
    }
    OXI_ASSIGN_OR_RETURN(out, NewTensor(want, rows, cols, OXI_BUFFER_WEIGHTS));
    Status converted = Convert(Tensor(src.get(), 0, stored, rows, cols), out.t);
    if (!converted.ok() && oxi_dtype_is_x8(stored)) {
      converted = converted.WithContext(
          StrCat("the folder was saved for a backend that holds ", oxi_dtype_name(stored),
                 " (--save-quantized); save it again with --device ", device()));
    }
    OXI_RETURN_IF_ERROR(converted.WithContext(StrCat("converting ", t->name)));
    OXI_RETURN_IF_ERROR(Sync());  // the source may be the mapping released below
    src.Reset();
    weights.Release(t);
    return out;
  }

 public:
  // A small host array (norm weights, frequency tables) resident as [rows][cols].
  StatusOr<OwnedTensor> Upload(const void* data, oxi_dtype dtype, int64_t rows, int64_t cols,
                               uint32_t flags = OXI_BUFFER_WEIGHTS) const {
    OXI_ASSIGN_OR_RETURN(OwnedTensor o, NewTensor(dtype, rows, cols, flags));
    OXI_RETURN_IF_ERROR(Write(o.t, data));
    return o;
  }
  StatusOr<OwnedTensor> Upload(const std::vector<float>& v) const {
    return Upload(v.data(), OXI_DTYPE_F32, 1, static_cast<int64_t>(v.size()));
  }

  // ---- operations (ops.h) ----
  bool Supports(const oxi_op& op) const {
    return be_ != nullptr && (be_->supports == nullptr || be_->supports(be_->self, &op) != 0);
  }
  Status Execute(const oxi_op& op) const {
    if (be_ == nullptr || be_->execute == nullptr) {
      return FailedPreconditionError("no backend to execute on");
    }
    const oxi_op* ops[1] = {&op};
    char error[1024] = {};
    const int32_t rc = be_->execute(be_->self, ops, 1, error, sizeof error);
    if (rc == OXI_OK) return OkStatus();
    return Status(rc, StrCat("backend ", device(), ": ", oxi_op_name(op.kind), ": ",
                             error[0] ? error : "failed"));
  }

  // An op struct with its header filled in (operands and scalars zero).
  template <typename Args>
  static Args Make(int kind) {
    Args a;
    oxi_op_init(&a.op, sizeof(Args), kind);
    return a;
  }

  Status MatMul(const Tensor& x, const Tensor& w, const Tensor& y,
                const Tensor& bias = Tensor()) const {
    auto a = Make<oxi_matmul_args>(OXI_OP_MATMUL);
    a.x = x, a.w = w, a.bias = bias, a.y = y;
    return Execute(a.op);
  }
  Status Convert(const Tensor& src, const Tensor& dst) const {
    auto a = Make<oxi_convert_args>(OXI_OP_CONVERT);
    a.src = src, a.dst = dst;
    return Execute(a.op);
  }
  Status GetRows(const Tensor& table, const Tensor& ids, const Tensor& out) const {
    auto a = Make<oxi_get_rows_args>(OXI_OP_GET_ROWS);
    a.table = table, a.ids = ids, a.out = out;
    return Execute(a.op);
  }
  Status SetRows(const Tensor& src, const Tensor& ids, const Tensor& dst) const {
    auto a = Make<oxi_set_rows_args>(OXI_OP_SET_ROWS);
    a.src = src, a.ids = ids, a.dst = dst;
    return Execute(a.op);
  }
  Status Copy(const Tensor& src, const Tensor& dst) const {
    auto a = Make<oxi_copy_args>(OXI_OP_COPY);
    a.src = src, a.dst = dst;
    return Execute(a.op);
  }
  Status Fill(const Tensor& dst, float value) const {
    auto a = Make<oxi_fill_args>(OXI_OP_FILL);
    a.dst = dst, a.value = value;
    return Execute(a.op);
  }
  Status Concat(const Tensor& x, const Tensor& y, const Tensor& out) const {
    auto a = Make<oxi_concat_args>(OXI_OP_CONCAT);
    a.a = x, a.b = y, a.out = out;
    return Execute(a.op);
  }
  Status Unary(oxi_unary_op fn, const Tensor& x, const Tensor& out) const {
    auto a = Make<oxi_unary_args>(OXI_OP_UNARY);
    a.x = x, a.out = out, a.fn = fn;
    return Execute(a.op);
  }
  Status Binary(oxi_binary_op fn, const Tensor& x, const Tensor& y, const Tensor& out) const {
    auto a = Make<oxi_binary_args>(OXI_OP_BINARY);
    a.a = x, a.b = y, a.out = out, a.fn = fn;
    return Execute(a.op);
  }
  Status Add(const Tensor& x, const Tensor& y, const Tensor& out) const {
    return Binary(OXI_BINARY_ADD, x, y, out);
  }
  Status Mul(const Tensor& x, const Tensor& y, const Tensor& out) const {
    return Binary(OXI_BINARY_MUL, x, y, out);
  }
  Status Scale(const Tensor& x, const Tensor& out, float scale, float bias = 0.0f) const {
    auto a = Make<oxi_scale_args>(OXI_OP_SCALE);
    a.x = x, a.out = out, a.scale = scale, a.bias = bias;
    return Execute(a.op);
  }
  Status Glu(oxi_unary_op act, const Tensor& gate, const Tensor& up, const Tensor& out) const {
    auto a = Make<oxi_glu_args>(OXI_OP_GLU);
    a.gate = gate, a.up = up, a.out = out, a.act = act;
    return Execute(a.op);
  }
  Status Softmax(const Tensor& x, const Tensor& out, float scale = 1.0f) const {
    auto a = Make<oxi_softmax_args>(OXI_OP_SOFTMAX);
    a.x = x, a.out = out, a.scale = scale;
    return Execute(a.op);
  }
  Status RmsNorm(const Tensor& x, const Tensor& weight, const Tensor& out, float eps,
                 float weight_offset = 0.0f) const {
    auto a = Make<oxi_rms_norm_args>(OXI_OP_RMS_NORM);
    a.x = x, a.weight = weight, a.out = out, a.eps = eps, a.weight_offset = weight_offset;
    return Execute(a.op);
  }
  Status L2Norm(const Tensor& x, const Tensor& out, float eps, float scale = 1.0f) const {
    auto a = Make<oxi_l2_norm_args>(OXI_OP_L2_NORM);
    a.x = x, a.out = out, a.eps = eps, a.scale = scale;
    return Execute(a.op);
  }
  Status LayerNorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, const Tensor& out,
                   float eps) const {
    auto a = Make<oxi_layer_norm_args>(OXI_OP_LAYER_NORM);
    a.x = x, a.gamma = gamma, a.beta = beta, a.out = out, a.eps = eps;
    return Execute(a.op);
  }
  Status GroupNorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, const Tensor& out,
                   int32_t groups, int32_t batch, float eps,
                   oxi_unary_op act = OXI_UNARY_NONE) const {
    auto a = Make<oxi_group_norm_args>(OXI_OP_GROUP_NORM);
    a.x = x, a.gamma = gamma, a.beta = beta, a.out = out;
    a.groups = groups, a.batch = batch, a.eps = eps, a.act = act;
    return Execute(a.op);
  }
  Status Rope(const Tensor& x, const Tensor& pos, const Tensor& inv_freq, const Tensor& out,
              int32_t n_heads, int32_t head_dim, int32_t rot_dim) const {
    auto a = Make<oxi_rope_args>(OXI_OP_ROPE);
    a.x = x, a.pos = pos, a.inv_freq = inv_freq, a.out = out;
    a.n_heads = n_heads, a.head_dim = head_dim, a.rot_dim = rot_dim;
    return Execute(a.op);
  }
  // Attention: fill the struct from AttentionArgs() (header set, rest zero).
  static oxi_attention_args AttentionArgs() { return Make<oxi_attention_args>(OXI_OP_ATTENTION); }
  Status Attention(const oxi_attention_args& a) const { return Execute(a.op); }
  Status Conv1dCausal(const Tensor& x, const Tensor& w, const Tensor& state, const Tensor& out,
                      oxi_unary_op act = OXI_UNARY_NONE) const {
    auto a = Make<oxi_conv1d_causal_args>(OXI_OP_CONV1D_CAUSAL);
    a.x = x, a.w = w, a.state = state, a.out = out, a.act = act;
    return Execute(a.op);
  }
  static oxi_gated_delta_args GatedDeltaArgs() {
    return Make<oxi_gated_delta_args>(OXI_OP_GATED_DELTA);
  }
  Status GatedDelta(const oxi_gated_delta_args& a) const { return Execute(a.op); }
  static oxi_conv2d_args Conv2dArgs() { return Make<oxi_conv2d_args>(OXI_OP_CONV2D); }
  Status Conv2d(const oxi_conv2d_args& a) const { return Execute(a.op); }
  Status UpsampleNearest(const Tensor& x, const Tensor& out, int32_t batch, int32_t height,
                         int32_t width, int32_t factor) const {
    auto a = Make<oxi_upsample_nearest_args>(OXI_OP_UPSAMPLE_NEAREST);
    a.x = x, a.out = out, a.batch = batch, a.height = height, a.width = width, a.factor = factor;
    return Execute(a.op);
  }

  // ABI 2.1.
  Status Clamp(const Tensor& x, const Tensor& out, float lo, float hi) const {
    auto a = Make<oxi_clamp_args>(OXI_OP_CLAMP);
    a.x = x, a.out = out, a.lo = lo, a.hi = hi;
    return Execute(a.op);
  }
  Status AvgPool2d(const Tensor& x, const Tensor& out, int32_t batch, int32_t height, int32_t width,
                   int32_t factor) const {
    auto a = Make<oxi_avg_pool2d_args>(OXI_OP_AVG_POOL2D);
    a.x = x, a.out = out, a.batch = batch, a.height = height, a.width = width, a.factor = factor;
    return Execute(a.op);
  }
  static oxi_local_attention_args LocalAttentionArgs() {
    return Make<oxi_local_attention_args>(OXI_OP_LOCAL_ATTENTION);
  }
  Status LocalAttention(const oxi_local_attention_args& a) const { return Execute(a.op); }

 private:
  const oxi_backend_iface* be_ = nullptr;
  const char* log_name_ = "model";
  std::shared_ptr<QuantStats> quant_stats_ = std::make_shared<QuantStats>();
};

// Activations of one forward: views carved out of a few large buffers, all
// invalid after Reset(). The buffers are kept from one forward to the next
// (merged into one when a forward needed more), so a steady decode allocates
// nothing.
class Scratch {
 public:
  explicit Scratch(const Compute* cx) : cx_(cx) {}
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  // Starts a forward: every view handed out so far is dead.
  void Reset() {
    if (chunks_.size() > 1) {
      uint64_t total = 0;
      for (const Chunk& c : chunks_) total += c.buffer.size();
      chunks_.clear();
      auto b = cx_->Alloc(total);
      if (b.ok()) chunks_.push_back(Chunk{std::move(*b), 0});
    }
    for (Chunk& c : chunks_) c.used = 0;
  }

  // A packed [rows][cols] tensor of dtype, 256-byte aligned.
  StatusOr<Tensor> Get(oxi_dtype dtype, int64_t rows, int64_t cols) {
    const int64_t row = oxi_dtype_row_bytes(dtype, cols);
    if (row < 0 || rows < 0) {
      return InvalidArgumentError(
          StrCat("scratch: a ", oxi_dtype_name(dtype), " tensor cannot have ", cols, " columns"));
    }
    const uint64_t bytes = std::max<uint64_t>(static_cast<uint64_t>(row * rows), 1);
    for (Chunk& c : chunks_) {
      const uint64_t at = (c.used + kAlign - 1) / kAlign * kAlign;
      if (at + bytes <= c.buffer.size()) {
        c.used = at + bytes;
        return Tensor(c.buffer.get(), at, dtype, rows, cols);
      }
    }
    const uint64_t last = chunks_.empty() ? 0 : chunks_.back().buffer.size();
    OXI_ASSIGN_OR_RETURN(Buffer b, cx_->Alloc(std::max<uint64_t>(bytes, std::max(last * 2, kMin))));
    chunks_.push_back(Chunk{std::move(b), bytes});
    return Tensor(chunks_.back().buffer.get(), 0, dtype, rows, cols);
  }
  StatusOr<Tensor> F32(int64_t rows, int64_t cols) { return Get(OXI_DTYPE_F32, rows, cols); }
  // Host values written into a fresh [1][n] tensor (positions, ids).
  StatusOr<Tensor> I32(const int32_t* values, int64_t n) {
    OXI_ASSIGN_OR_RETURN(Tensor t, Get(OXI_DTYPE_I32, 1, n));
    OXI_RETURN_IF_ERROR(cx_->Write(t, values));
    return t;
  }
  StatusOr<Tensor> F32(const float* values, int64_t rows, int64_t cols) {
    OXI_ASSIGN_OR_RETURN(Tensor t, Get(OXI_DTYPE_F32, rows, cols));
    OXI_RETURN_IF_ERROR(cx_->Write(t, values));
    return t;
  }

 private:
  static constexpr uint64_t kAlign = 256;
  static constexpr uint64_t kMin = uint64_t{1} << 20;
  struct Chunk {
    Buffer buffer;
    uint64_t used = 0;
  };
  const Compute* cx_;
  std::vector<Chunk> chunks_;
};

}  // namespace sdk
}  // namespace oxinfer

#endif  // OXINFER_SDK_COMPUTE_HPP_
