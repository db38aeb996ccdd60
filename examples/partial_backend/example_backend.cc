// An example third-party backend plugin, built from the oxinfer SDK headers
// alone. It runs element-wise binary operations on f32 tensors of equal shape
// and declines every other call, which the host then runs on its CPU backend:
// a partial backend is used for what it supports, never instead of the CPU.
// Its buffers are host memory that the SDK adapter manages.
#include <cstdint>

#include "oxinfer/plugin.hpp"

namespace sdk = oxinfer::sdk;

struct ExampleBackend {
  bool Supports(const oxi_op& op) const {
    if (op.kind != OXI_OP_BINARY || !sdk::AllF32(op)) return false;
    const auto& a = reinterpret_cast<const oxi_binary_args&>(op);
    return a.b.rows == a.a.rows && a.b.cols == a.a.cols && a.fn >= 1 && a.fn <= 4;
  }

  sdk::Status Execute(const oxi_op& op) {
    const auto& a = reinterpret_cast<const oxi_binary_args&>(op);
    for (int64_t r = 0; r < a.a.rows; ++r) {
      const float* x = sdk::HostRow<float>(a.a, r);
      const float* y = sdk::HostRow<float>(a.b, r);
      float* out = sdk::HostRow<float>(a.out, r);
      for (int64_t c = 0; c < a.a.cols; ++c) {
        const float u = x[c], v = y[c];
        out[c] = a.fn == OXI_BINARY_ADD   ? u + v
                 : a.fn == OXI_BINARY_SUB ? u - v
                 : a.fn == OXI_BINARY_MUL ? u * v
                                          : u / v;
      }
    }
    return sdk::OkStatus();
  }
};

OXINFER_BACKEND_PLUGIN(ExampleBackend, "example", "1.0.0",
                       "third-party example: element-wise f32 binary ops, the rest on the CPU",
                       OXI_DEVICE_ACCEL)
