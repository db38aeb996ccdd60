#include "tests/backends/host_accel.h"

#include "core/host_services.h"
#include "oxinfer/sdk/backend_plugin.hpp"
#include "tests/backends/plain_kernels.h"

namespace oxinfer {
namespace testing {
namespace {

struct HostAccel {
  bool Supports(const oxi_op& op) const {
    if (op.kind == OXI_OP_RMS_NORM) return sdk::AllF32(op);
    if (op.kind != OXI_OP_MATMUL) return false;
    const auto& a = reinterpret_cast<const oxi_matmul_args&>(op);
    return a.x.dtype == OXI_DTYPE_F32 && a.w.dtype == OXI_DTYPE_F16 && a.y.dtype == OXI_DTYPE_F32 &&
           a.bias.buffer == nullptr && a.x.cols == a.w.cols;
  }
  sdk::Status Execute(const oxi_op& op) {
    if (op.kind == OXI_OP_RMS_NORM) {
      const auto& a = reinterpret_cast<const oxi_rms_norm_args&>(op);
      test_backends::RmsNorm(a, sdk::HostData(a.x),
                             a.weight.buffer != nullptr ? sdk::HostData(a.weight) : nullptr,
                             sdk::HostData(a.out));
      return sdk::OkStatus();
    }
    const auto& a = reinterpret_cast<const oxi_matmul_args&>(op);
    test_backends::Matmul(a, sdk::HostData(a.x), sdk::HostData(a.w), nullptr, sdk::HostData(a.y));
    return sdk::OkStatus();
  }
  oxi_dtype PreferredWeightDtype(oxi_dtype dtype, int64_t, int64_t) const {
    return dtype == OXI_DTYPE_BF16 ? OXI_DTYPE_F16 : dtype;
  }
};

struct NoopAccel {
  bool Supports(const oxi_op&) const { return true; }
  sdk::Status Execute(const oxi_op&) { return sdk::OkStatus(); }
};

template <typename T>
oxi_backend_iface MakeIface(const char* name) {
  char error[256] = {};
  const void* iface = sdk::BackendPlugin<T>::GetInterface(HostServices(), name, OXI_DEVICE_ACCEL,
                                                          error, sizeof error);
  return *static_cast<const oxi_backend_iface*>(iface);
}

}  // namespace

const oxi_backend_iface* HostAccelBackend() {
  static const oxi_backend_iface iface = MakeIface<HostAccel>("host-accel");
  return &iface;
}

const oxi_backend_iface* NoopAccelBackend(bool wrap) {
  static const oxi_backend_iface with_wrap = MakeIface<NoopAccel>("noop-accel");
  static const oxi_backend_iface without_wrap = [] {
    oxi_backend_iface t = with_wrap;
    t.buffer_wrap = nullptr;
    return t;
  }();
  return wrap ? &with_wrap : &without_wrap;
}

}  // namespace testing
}  // namespace oxinfer
