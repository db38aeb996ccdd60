// "arena": a restricted test accelerator. Its buffers live in its own arena
// with no host pointers (no buffer_host_ptr, no buffer_wrap), every handle and
// every operand's extent is checked, and it runs only matmul (F32 / BF16 /
// F16 weights; quantised ones are declined and fall back) and rms_norm, with
// the plain loops of ../plain_kernels.h. Composed with a CPU backend it
// proves that no operation touches memory it was not given.
//
// Test switches (read at every op):
//   OXINFER_ARENA_WRONG_RMS_NORM=1  rms_norm output scaled by 1.5 (for the check mode)
//   OXINFER_ARENA_FAIL=<op name>    that op fails with a message
//   OXINFER_ARENA_BYTES=<n>         the arena's size (default 4 GiB of address space)
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "oxinfer/plugin.hpp"
#include "tests/backends/arena/arena.h"
#include "tests/backends/plain_kernels.h"

namespace oxinfer {
namespace arena {
namespace {

bool EnvIs(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v != nullptr && std::strcmp(v, value) == 0;
}

uint64_t ArenaBytes() {
  const char* v = std::getenv("OXINFER_ARENA_BYTES");
  const uint64_t n = v != nullptr ? std::strtoull(v, nullptr, 10) : 0;
  return n > 0 ? n : uint64_t{4} << 30;
}

bool IsFloatWeight(int32_t dtype) {
  return dtype == OXI_DTYPE_F32 || dtype == OXI_DTYPE_BF16 || dtype == OXI_DTYPE_F16;
}
bool Present(const oxi_tensor& t) { return t.buffer != nullptr; }
bool IsRowOfF32(const oxi_tensor& t, int64_t n) {
  return t.dtype == OXI_DTYPE_F32 && t.rows == 1 && t.cols == n;
}
// Plain element types may have any stride at least a row; F32 rows here.
bool RowsFit(const oxi_tensor& t) {
  const int64_t row = oxi_dtype_row_bytes(static_cast<oxi_dtype>(t.dtype), t.cols);
  return row >= 0 && t.rows >= 0 && (t.row_stride == 0 || t.row_stride >= row);
}

bool SupportsMatmul(const oxi_matmul_args& a) {
  return a.op.struct_size >= sizeof a && a.x.dtype == OXI_DTYPE_F32 && a.y.dtype == OXI_DTYPE_F32 &&
         IsFloatWeight(a.w.dtype) && RowsFit(a.x) && RowsFit(a.w) && RowsFit(a.y) &&
         a.x.cols == a.w.cols && a.y.rows == a.x.rows && a.y.cols == a.w.rows &&
         (!Present(a.bias) || IsRowOfF32(a.bias, a.w.rows));
}

bool SupportsRmsNorm(const oxi_rms_norm_args& a) {
  return a.op.struct_size >= sizeof a && a.x.dtype == OXI_DTYPE_F32 &&
         a.out.dtype == OXI_DTYPE_F32 && RowsFit(a.x) && RowsFit(a.out) && a.x.rows == a.out.rows &&
         a.x.cols == a.out.cols && (!Present(a.weight) || IsRowOfF32(a.weight, a.x.cols));
}

class ArenaBackend {
 public:
  ArenaBackend() : arena_(ArenaBytes()) {}

  bool Supports(const oxi_op& op) const {
    switch (op.kind) {
      case OXI_OP_MATMUL:
        return SupportsMatmul(reinterpret_cast<const oxi_matmul_args&>(op));
      case OXI_OP_RMS_NORM:
        return SupportsRmsNorm(reinterpret_cast<const oxi_rms_norm_args&>(op));
      default:
        return false;
    }
  }

  sdk::Status Execute(const oxi_op& op) {
    const char* name = oxi_op_name(op.kind);
    if (!Supports(op)) {
      return sdk::UnimplementedError(sdk::StrCat(name, ": not supported by the arena backend"));
    }
    if (EnvIs("OXINFER_ARENA_FAIL", name)) {
      return sdk::InternalError(sdk::StrCat(name, ": injected failure (OXINFER_ARENA_FAIL)"));
    }
    if (op.kind == OXI_OP_MATMUL) {
      const auto& a = reinterpret_cast<const oxi_matmul_args&>(op);
      OXI_ASSIGN_OR_RETURN(uint8_t * x, Operand(a.x, "matmul operand x"));
      OXI_ASSIGN_OR_RETURN(uint8_t * w, Operand(a.w, "matmul operand w"));
      OXI_ASSIGN_OR_RETURN(uint8_t * bias, Operand(a.bias, "matmul operand bias"));
      OXI_ASSIGN_OR_RETURN(uint8_t * y, Operand(a.y, "matmul operand y"));
      test_backends::Matmul(a, x, w, bias, y);
      return sdk::OkStatus();
    }
    const auto& a = reinterpret_cast<const oxi_rms_norm_args&>(op);
    OXI_ASSIGN_OR_RETURN(uint8_t * x, Operand(a.x, "rms_norm operand x"));
    OXI_ASSIGN_OR_RETURN(uint8_t * weight, Operand(a.weight, "rms_norm operand weight"));
    OXI_ASSIGN_OR_RETURN(uint8_t * out, Operand(a.out, "rms_norm operand out"));
    test_backends::RmsNorm(a, x, weight, out);
    if (EnvIs("OXINFER_ARENA_WRONG_RMS_NORM", "1")) {
      for (int64_t r = 0; r < a.out.rows; ++r) {
        float* o = test_backends::RowF32(a.out, out, r);
        for (int64_t c = 0; c < a.out.cols; ++c) o[c] *= 1.5f;
      }
    }
    return sdk::OkStatus();
  }

  sdk::StatusOr<oxi_buffer*> Alloc(uint64_t size, uint32_t flags) {
    return arena_.Alloc(size, (flags & OXI_BUFFER_ZERO) != 0);
  }
  void Free(oxi_buffer* buffer) {
    // No message can leave buffer_free; a bad handle is logged.
    sdk::Status s = arena_.Free(buffer);
    if (!s.ok()) sdk::Log(sdk::Host(), OXI_LOG_ERROR, "arena", s.message());
  }
  sdk::Status Write(oxi_buffer* dst, uint64_t offset, const void* src, uint64_t size) {
    OXI_ASSIGN_OR_RETURN(uint8_t * p, arena_.Bytes(dst, offset, size, "buffer_write"));
    std::memcpy(p, src, size);
    return sdk::OkStatus();
  }
  sdk::Status Read(oxi_buffer* src, uint64_t offset, void* dst, uint64_t size) {
    OXI_ASSIGN_OR_RETURN(uint8_t * p, arena_.Bytes(src, offset, size, "buffer_read"));
    std::memcpy(dst, p, size);
    return sdk::OkStatus();
  }
  sdk::Status CopyBuffer(oxi_buffer* dst, uint64_t dst_offset, oxi_buffer* src, uint64_t src_offset,
                         uint64_t size) {
    OXI_ASSIGN_OR_RETURN(uint8_t * d,
                         arena_.Bytes(dst, dst_offset, size, "buffer_copy (destination)"));
    OXI_ASSIGN_OR_RETURN(uint8_t * s, arena_.Bytes(src, src_offset, size, "buffer_copy (source)"));
    std::memmove(d, s, size);
    return sdk::OkStatus();
  }
  void DeviceInfo(oxi_device_info* info) const {
    info->name = "arena test accelerator (host memory behind handles)";
    info->kind = OXI_DEVICE_ACCEL;
    info->compute_units = 1;
  }

 private:
  // An operand's bytes, its whole extent checked against its buffer; null
  // for an absent optional operand.
  sdk::StatusOr<uint8_t*> Operand(const oxi_tensor& t, const char* what) const {
    if (t.buffer == nullptr) return static_cast<uint8_t*>(nullptr);
    const int64_t extent = oxi_tensor_extent(&t);
    if (extent < 0) return sdk::InvalidArgumentError(sdk::StrCat(what, ": no valid extent"));
    return arena_.Bytes(t.buffer, t.offset, static_cast<uint64_t>(extent), what);
  }

  Arena arena_;
};

}  // namespace
}  // namespace arena
}  // namespace oxinfer

OXINFER_BACKEND_PLUGIN(oxinfer::arena::ArenaBackend, "arena", "1.0.0",
                       "restricted test accelerator: own arena, no host pointers, matmul and "
                       "rms_norm only",
                       OXI_DEVICE_ACCEL)
