// Element-wise and data-movement ops (kernels/elementwise.cu).
#include "plugins/backends/cuda/cuda_ops.h"

namespace oxinfer {
namespace cuda {
namespace {

template <typename A>
const A& Args(const oxi_op& op) {
  return reinterpret_cast<const A&>(op);
}

sdk::Status SameShape(const char* op, const oxi_tensor& a, const oxi_tensor& b) {
  if (a.rows == b.rows && a.cols == b.cols) return sdk::OkStatus();
  return sdk::InvalidArgumentError(
      sdk::StrCat(op, ": ", a.rows, "x", a.cols, " and ", b.rows, "x", b.cols, " differ"));
}

// Ids in range, read back from the device (get_rows must refuse a bad one).
sdk::Status CheckIds(Device& dev, const oxi_tensor& ids, int64_t rows, const char* op) {
  std::vector<int32_t> host(static_cast<size_t>(ids.cols));
  if (host.empty()) return sdk::OkStatus();
  OXI_RETURN_IF_ERROR(dev.Check(
      dev.driver().MemcpyDtoH(host.data(), ToMat(ids).ptr, host.size() * 4), "reading ids"));
  for (size_t i = 0; i < host.size(); ++i) {
    if (host[i] < 0 || host[i] >= rows) {
      return sdk::InvalidArgumentError(
          sdk::StrCat(op, ": id ", host[i], " at ", i, " outside [0, ", rows, ")"));
    }
  }
  return sdk::OkStatus();
}

}  // namespace

sdk::Status RunElementwise(Device& dev, const oxi_op& op) {
  switch (op.kind) {
    case OXI_OP_UNARY: {
      const auto& a = Args<oxi_unary_args>(op);
      OXI_RETURN_IF_ERROR(SameShape("unary", a.x, a.out));
      UnaryParams p{ToMat(a.x), ToMat(a.out), a.fn, 1.0f, 0.0f};
      return dev.LaunchItems("ox_unary", a.x.rows * a.x.cols, {&p});
    }
    case OXI_OP_SCALE: {
      const auto& a = Args<oxi_scale_args>(op);
      OXI_RETURN_IF_ERROR(SameShape("scale", a.x, a.out));
      UnaryParams p{ToMat(a.x), ToMat(a.out), -1, a.scale, a.bias};
      return dev.LaunchItems("ox_unary", a.x.rows * a.x.cols, {&p});
    }
    case OXI_OP_BINARY: {
      const auto& a = Args<oxi_binary_args>(op);
      OXI_RETURN_IF_ERROR(SameShape("binary", a.a, a.out));
      if ((a.b.rows != 1 && a.b.rows != a.a.rows) || (a.b.cols != 1 && a.b.cols != a.a.cols)) {
        return sdk::InvalidArgumentError("binary: b broadcasts to neither rows nor columns of a");
      }
      BinaryParams p{ToMat(a.a), ToMat(a.b), ToMat(a.out), a.fn};
      return dev.LaunchItems("ox_binary", a.a.rows * a.a.cols, {&p});
    }
    case OXI_OP_GLU: {
      const auto& a = Args<oxi_glu_args>(op);
      OXI_RETURN_IF_ERROR(SameShape("glu", a.gate, a.up));
      OXI_RETURN_IF_ERROR(SameShape("glu", a.gate, a.out));
      GluParams p{ToMat(a.gate), ToMat(a.up), ToMat(a.out), a.act};
      return dev.LaunchItems("ox_glu", a.gate.rows * a.gate.cols, {&p});
    }
    case OXI_OP_FILL: {
      const auto& a = Args<oxi_fill_args>(op);
      FillParams p{ToMat(a.dst), a.value};
      return dev.LaunchItems("ox_fill", a.dst.rows * a.dst.cols, {&p});
    }
    case OXI_OP_COPY: {
      const auto& a = Args<oxi_copy_args>(op);
      OXI_RETURN_IF_ERROR(SameShape("copy", a.src, a.dst));
      CopyParams p{ToMat(a.src), ToMat(a.dst), 0};
      if (a.src.dtype == OXI_DTYPE_Q8_0 || a.src.dtype == OXI_DTYPE_Q4_0) {
        p.src.cols = p.dst.cols =
            oxi_dtype_row_bytes(static_cast<oxi_dtype>(a.src.dtype), a.src.cols);
        return dev.LaunchItems("ox_copy_bytes", a.src.rows * p.src.cols, {&p});
      }
      return dev.LaunchItems("ox_copy", a.src.rows * a.src.cols, {&p});
    }
    case OXI_OP_CONCAT: {
      const auto& a = Args<oxi_concat_args>(op);
      if (a.a.rows != a.out.rows || a.b.rows != a.out.rows || a.a.cols + a.b.cols != a.out.cols) {
        return sdk::InvalidArgumentError("concat: out is not [rows][ca + cb]");
      }
      CopyParams first{ToMat(a.a), ToMat(a.out), 0};
      OXI_RETURN_IF_ERROR(dev.LaunchItems("ox_copy", a.a.rows * a.a.cols, {&first}));
      CopyParams second{ToMat(a.b), ToMat(a.out), a.a.cols};
      return dev.LaunchItems("ox_copy", a.b.rows * a.b.cols, {&second});
    }
    case OXI_OP_GET_ROWS: {
      const auto& a = Args<oxi_get_rows_args>(op);
      if (a.out.rows != a.ids.cols || a.out.cols != a.table.cols) {
        return sdk::InvalidArgumentError("get_rows: out is not [n ids][table cols]");
      }
      OXI_RETURN_IF_ERROR(CheckIds(dev, a.ids, a.table.rows, "get_rows"));
      RowsParams p{ToMat(a.table), ToMat(a.ids), ToMat(a.out)};
      return dev.LaunchItems("ox_get_rows", a.out.rows * a.out.cols, {&p});
    }
    case OXI_OP_SET_ROWS: {
      const auto& a = Args<oxi_set_rows_args>(op);
      if (a.src.rows != a.ids.cols || a.src.cols != a.dst.cols) {
        return sdk::InvalidArgumentError("set_rows: src is not [n ids][dst cols]");
      }
      // No read-back here (a sync per KV-cache write): the kernel skips an id
      // out of range instead of writing outside dst.
      RowsParams p{ToMat(a.src), ToMat(a.ids), ToMat(a.dst)};
      return dev.LaunchItems("ox_set_rows", a.src.rows * a.src.cols, {&p});
    }
    case OXI_OP_CONVERT: {
      const auto& a = Args<oxi_convert_args>(op);
      OXI_RETURN_IF_ERROR(SameShape("convert", a.src, a.dst));
      ConvertParams p{ToMat(a.src), ToMat(a.dst)};
      const bool to_blocks = a.dst.dtype == OXI_DTYPE_Q8_0 || a.dst.dtype == OXI_DTYPE_Q4_0;
      if (a.src.dtype == a.dst.dtype && to_blocks) {
        CopyParams c{ToMat(a.src), ToMat(a.dst), 0};
        c.src.cols = c.dst.cols =
            oxi_dtype_row_bytes(static_cast<oxi_dtype>(a.src.dtype), a.src.cols);
        return dev.LaunchItems("ox_copy_bytes", a.src.rows * c.src.cols, {&c});
      }
      if (to_blocks) {
        if (a.src.cols % 32 != 0)
          return sdk::InvalidArgumentError("convert: cols not a multiple of 32");
        return dev.LaunchItems("ox_convert_to_blocks", a.src.rows * (a.src.cols / 32), {&p});
      }
      return dev.LaunchItems("ox_convert_to_float", a.src.rows * a.src.cols, {&p});
    }
    default:
      return sdk::UnimplementedError(sdk::StrCat("cuda: no kernel for ", oxi_op_name(op.kind)));
  }
}

}  // namespace cuda
}  // namespace oxinfer
