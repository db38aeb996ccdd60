#include "plugins/backends/vulkan/vulkan_backend.h"

#include <cstdlib>
#include <cstring>

#include "plugins/backends/vulkan/ops.h"

namespace oxinfer {
namespace vulkan {

VulkanBackend::VulkanBackend() {
  std::string reason;
  instance_ = GetVulkanInstance(&reason);  // score() succeeded, so this does too
}

int32_t VulkanBackend::Score(const oxi_host_services*, std::string* reason) {
  VulkanInstance* vi = GetVulkanInstance(reason);
  if (vi == nullptr) return 0;
  // A discrete GPU first, then integrated, virtual, and a CPU rasteriser
  // (lavapipe) last.
  const PhysicalDevice& d = vi->devices[0];
  switch (d.props.deviceType) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return 100;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return 80;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return 60;
    default:
      return 10;
  }
}

int32_t VulkanBackend::DeviceCount() const {
  return instance_ != nullptr ? static_cast<int32_t>(instance_->devices.size()) : 0;
}

bool VulkanBackend::DeviceInfoAt(int32_t index, oxi_device_info* info) const {
  if (instance_ == nullptr || index < 0 || index >= DeviceCount()) return false;
  const PhysicalDevice& d = instance_->devices[index];
  const uint32_t size = info->struct_size;
  std::memset(info, 0, sizeof *info);
  info->struct_size = size;
  info->name = d.name.c_str();
  info->kind = d.props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ? OXI_DEVICE_CPU : OXI_DEVICE_GPU;
  info->memory_total = d.memory;
  info->subgroup_size = static_cast<int32_t>(d.subgroup_size);
  if (OXI_HAS_FIELD(info, oxi_device_info, driver)) info->driver = d.driver.c_str();
  return true;
}

sdk::Status VulkanBackend::SelectDevice(int32_t index) {
  if (index < 0 || index >= DeviceCount()) {
    return sdk::OutOfRangeError(
        sdk::StrCat("no Vulkan device ", index, " (there are ", DeviceCount(), ")"));
  }
  if (index == selected_) return sdk::OkStatus();
  if (live_buffers_ > 0) {
    return sdk::FailedPreconditionError("the device cannot change once buffers exist");
  }
  device_.reset();
  selected_ = index;
  return sdk::OkStatus();
}

sdk::StatusOr<Device*> VulkanBackend::Dev() {
  if (device_ == nullptr) {
    if (instance_ == nullptr) return sdk::FailedPreconditionError("no Vulkan instance");
    OXI_ASSIGN_OR_RETURN(device_, Device::Create(instance_, selected_));
  }
  return device_.get();
}

bool VulkanBackend::Supports(const oxi_op& op) const {
  if (instance_ == nullptr) return false;
  const VkPhysicalDeviceLimits& l = instance_->devices[selected_].props.limits;
  Limits limits;
  limits.max_range = l.maxStorageBufferRange;
  limits.align = std::max<uint64_t>(l.minStorageBufferOffsetAlignment, 4);
  return SupportsOp(limits, op);
}

// Records the ops into the device's command buffer; the submission waits
// for a synchronize, a read, a write, a copy or a free (the host's
// dispatcher synchronizes before the CPU touches what the ops wrote), so a
// forward that stays on the device is one submission. Ops whose data can be
// invalid (ids outside their table) are submitted at once, so that execute()
// itself reports the error: get_rows starts a forward and set_rows ends a
// layer's KV writes, so that is about one submission per layer.
sdk::Status VulkanBackend::ExecuteAll(const oxi_op* const* ops, int64_t n) {
  OXI_ASSIGN_OR_RETURN(Device * dev, Dev());
  bool checks_data = false;
  for (int64_t i = 0; i < n; ++i) {
    const oxi_op& op = *ops[i];
    if (!Supports(op)) {
      return sdk::UnimplementedError(sdk::StrCat(oxi_op_name(op.kind),
                                                 ": not supported by the Vulkan backend with these "
                                                 "dtypes and shapes (supports() says no)"));
    }
    const sdk::Status s = EncodeOp(dev, op);
    if (!s.ok()) return sdk::Status(s.code(), sdk::StrCat(oxi_op_name(op.kind), ": ", s.message()));
    if (pending_.size() < 200)
      pending_ += std::string(pending_.empty() ? "" : ", ") + oxi_op_name(op.kind);
    checks_data = checks_data || op.kind == OXI_OP_GET_ROWS || op.kind == OXI_OP_SET_ROWS;
  }
  return checks_data ? Synchronize() : sdk::OkStatus();
}

sdk::Status VulkanBackend::Synchronize() {
  if (device_ == nullptr) return sdk::OkStatus();
  const std::string what = pending_.empty() ? std::string("queued work") : pending_;
  pending_.clear();
  return device_->Flush(what);
}

sdk::StatusOr<oxi_buffer*> VulkanBackend::Alloc(uint64_t size, uint32_t flags) {
  OXI_ASSIGN_OR_RETURN(Device * dev, Dev());
  OXI_ASSIGN_OR_RETURN(VkBuf * b, dev->Alloc(size));
  // OXINFER_VULKAN_POISON=1: buffers not asked zeroed start as NaN bytes,
  // so that a read of memory nothing wrote shows (lavapipe's allocations
  // hold whatever the process freed there last).
  static const bool poison = [] {
    const char* e = std::getenv("OXINFER_VULKAN_POISON");
    return e != nullptr && e[0] == '1';
  }();
  if ((flags & OXI_BUFFER_ZERO) != 0 || poison) {
    const uint8_t fill = (flags & OXI_BUFFER_ZERO) != 0 ? 0 : 0xff;
    std::vector<uint8_t> zeros(std::min<uint64_t>(size, uint64_t{1} << 20), fill);
    for (uint64_t done = 0; done < size; done += zeros.size()) {
      const sdk::Status s =
          dev->Write(b, done, zeros.data(), std::min<uint64_t>(zeros.size(), size - done));
      if (!s.ok()) {
        dev->Free(b);
        return s;
      }
    }
  }
  ++live_buffers_;
  return reinterpret_cast<oxi_buffer*>(b);
}

void VulkanBackend::Free(oxi_buffer* buffer) {
  if (buffer == nullptr || device_ == nullptr) return;
  // Work still recorded may use it: submitted and waited for first.
  const sdk::Status s = Synchronize();
  if (!s.ok()) device_->Log(s.message());
  device_->Free(AsVkBuf(buffer));
  --live_buffers_;
}

sdk::Status VulkanBackend::Write(oxi_buffer* dst, uint64_t offset, const void* src, uint64_t size) {
  OXI_ASSIGN_OR_RETURN(Device * dev, Dev());
  OXI_RETURN_IF_ERROR(Synchronize());  // recorded work comes first
  return dev->Write(AsVkBuf(dst), offset, src, size);
}

sdk::Status VulkanBackend::Read(oxi_buffer* src, uint64_t offset, void* dst, uint64_t size) {
  OXI_ASSIGN_OR_RETURN(Device * dev, Dev());
  OXI_RETURN_IF_ERROR(Synchronize());
  return dev->Read(AsVkBuf(src), offset, dst, size);
}

sdk::Status VulkanBackend::CopyBuffer(oxi_buffer* dst, uint64_t dst_offset, oxi_buffer* src,
                                      uint64_t src_offset, uint64_t size) {
  OXI_ASSIGN_OR_RETURN(Device * dev, Dev());
  OXI_RETURN_IF_ERROR(Synchronize());
  return dev->Copy(AsVkBuf(dst), dst_offset, AsVkBuf(src), src_offset, size);
}

}  // namespace vulkan
}  // namespace oxinfer
