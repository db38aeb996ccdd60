// A partial GPU backend over two devices (ABI 2.1: device_count,
// device_info_at, select_device) with its own prefill chunk: what
// `--device test-gpus:1` and the --devices listing use.
#include <string>

#include "oxinfer/plugin.hpp"

namespace {

namespace sdk = oxinfer::sdk;

const char* const kDevices[2] = {"first test GPU", "second test GPU"};

struct TwoGpus {
  static constexpr int32_t kPrefillChunk = 384;

  static int32_t Score(const oxi_host_services*, std::string*) { return 4; }
  bool Supports(const oxi_op&) const { return false; }
  sdk::Status Execute(const oxi_op& op) {
    return sdk::UnimplementedError(sdk::StrCat("test backend: op kind ", op.kind));
  }
  int32_t DeviceCount() const { return 2; }
  bool DeviceInfoAt(int32_t index, oxi_device_info* info) const {
    if (index < 0 || index >= DeviceCount()) return false;
    info->name = kDevices[index];
    info->kind = OXI_DEVICE_GPU;
    info->memory_total = static_cast<uint64_t>(index + 1) << 30;
    return true;
  }
  void DeviceInfo(oxi_device_info* info) const { DeviceInfoAt(selected, info); }
  sdk::Status SelectDevice(int32_t index) {
    if (index < 0 || index >= DeviceCount()) {
      return sdk::OutOfRangeError(sdk::StrCat("no device ", index));
    }
    selected = index;
    return sdk::OkStatus();
  }
  int32_t selected = 0;
};

}  // namespace

OXINFER_BACKEND_PLUGIN(TwoGpus, "test-gpus", "1.0.0", "registry test backend, two devices",
                       OXI_DEVICE_GPU)
