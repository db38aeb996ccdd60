// The Vulkan backend: buffers in a Vulkan device's memory and the
// operations of ops.h that have a shader, recorded into one command buffer
// per execute() call and submitted once. What it does not support runs on
// the CPU (the host's dispatcher asks supports() per call).
#ifndef OXINFER_PLUGINS_BACKENDS_VULKAN_VULKAN_BACKEND_H_
#define OXINFER_PLUGINS_BACKENDS_VULKAN_VULKAN_BACKEND_H_

#include <memory>
#include <string>

#include "oxinfer/plugin.hpp"
#include "plugins/backends/vulkan/vk_device.h"

namespace oxinfer {
namespace vulkan {

class VulkanBackend {
 public:
  VulkanBackend();

  static int32_t Score(const oxi_host_services* host, std::string* reason);

  bool Supports(const oxi_op& op) const;
  sdk::Status Execute(const oxi_op& op) { return ExecuteAll(&ptr(op), 1); }
  sdk::Status ExecuteAll(const oxi_op* const* ops, int64_t n);
  sdk::Status Synchronize();

  void DeviceInfo(oxi_device_info* info) const { DeviceInfoAt(selected_, info); }
  int32_t DeviceCount() const;
  bool DeviceInfoAt(int32_t index, oxi_device_info* info) const;
  sdk::Status SelectDevice(int32_t index);

  sdk::StatusOr<oxi_buffer*> Alloc(uint64_t size, uint32_t flags);
  void Free(oxi_buffer* buffer);
  sdk::Status Write(oxi_buffer* dst, uint64_t offset, const void* src, uint64_t size);
  sdk::Status Read(oxi_buffer* src, uint64_t offset, void* dst, uint64_t size);
  sdk::Status CopyBuffer(oxi_buffer* dst, uint64_t dst_offset, oxi_buffer* src,
                         uint64_t src_offset, uint64_t size);

 private:
  static const oxi_op*& ptr(const oxi_op& op) {
    static thread_local const oxi_op* p;
    p = &op;
    return p;
  }
  // The device, created on first use (so that --device vulkan:1 can pick
  // another before anything is allocated).
  sdk::StatusOr<Device*> Dev();

  VulkanInstance* instance_ = nullptr;
  int32_t selected_ = 0;
  std::unique_ptr<Device> device_;
  int64_t live_buffers_ = 0;
  std::string pending_;  // the kinds of the ops recorded and not yet submitted
};

}  // namespace vulkan
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_BACKENDS_VULKAN_VULKAN_BACKEND_H_
