// A GPU backend whose device is a software implementation (device_info's
// kind is cpu, as Vulkan over Mesa's lavapipe): "auto" passes it over even
// though it scores best; "gpu" and its name still take it.
#include <string>

#include "oxinfer/plugin.hpp"

namespace {

namespace sdk = oxinfer::sdk;

struct SoftGpu {
  static int32_t Score(const oxi_host_services*, std::string*) { return 9; }
  bool Supports(const oxi_op&) const { return false; }
  sdk::Status Execute(const oxi_op& op) {
    return sdk::UnimplementedError(sdk::StrCat("test backend: op kind ", op.kind));
  }
  void DeviceInfo(oxi_device_info* info) const {
    info->name = "llvmpipe (software)";
    info->kind = OXI_DEVICE_CPU;
  }
};

}  // namespace

OXINFER_BACKEND_PLUGIN(SoftGpu, "test-soft-gpu", "1.0.0", "registry test backend, software GPU",
                       OXI_DEVICE_GPU)
