// One Vulkan device in use: its queue, memory, buffers, the compute
// pipelines (made on first use from the embedded SPIR-V) and the recording
// of dispatches into one command buffer that is submitted once per
// execute() call (Flush), with a barrier between dispatches.
#ifndef OXINFER_PLUGINS_BACKENDS_VULKAN_VK_DEVICE_H_
#define OXINFER_PLUGINS_BACKENDS_VULKAN_VK_DEVICE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "oxinfer/plugin.hpp"
#include "plugins/backends/vulkan/shaders.h"
#include "plugins/backends/vulkan/vk_instance.h"

namespace oxinfer {
namespace vulkan {

// A buffer of the device; oxi_buffer* handles point at these.
struct VkBuf {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  uint64_t size = 0;          // as asked
  uint64_t alloc_size = 0;    // rounded up to 16 bytes: shaders read whole words
  uint8_t* mapped = nullptr;  // host-visible memory, mapped for good; else null
};
inline VkBuf* AsVkBuf(oxi_buffer* b) { return reinterpret_cast<VkBuf*>(b); }

// A tensor operand as a shader sees it: bound at an aligned offset, the rest
// of the offset and the row stride in the push constants.
struct Binding {
  const VkBuf* buf = nullptr;  // null: the dummy buffer
  uint64_t bind_offset = 0;
  uint64_t range = 0;
  uint32_t rem = 0, stride = 0;
};

// Push constants, built in the order the shader declares them.
class PushConstants {
 public:
  void U(uint32_t v) { words_.push_back(v); }
  void I(int32_t v) { words_.push_back(static_cast<uint32_t>(v)); }
  void F(float f);
  const std::vector<uint32_t>& words() const { return words_; }

 private:
  std::vector<uint32_t> words_;
};

class Device {
 public:
  static sdk::StatusOr<std::unique_ptr<Device>> Create(VulkanInstance* vi, int32_t index);
  ~Device();

  const PhysicalDevice& physical() const { return pd_; }
  // A warning through the host's log (errors that have no caller to go to).
  void Log(const std::string& message) const;
  uint64_t max_range() const { return pd_.props.limits.maxStorageBufferRange; }

  // ---- memory ----
  sdk::StatusOr<VkBuf*> Alloc(uint64_t size);
  void Free(VkBuf* b);
  sdk::Status Write(VkBuf* dst, uint64_t offset, const void* src, uint64_t size);
  sdk::Status Read(VkBuf* src, uint64_t offset, void* dst, uint64_t size);
  sdk::Status Copy(VkBuf* dst, uint64_t dst_offset, VkBuf* src, uint64_t src_offset,
                   uint64_t size);

  // ---- recording ----
  // The binding of tensor t (its buffer must be this device's; absent: the dummy).
  Binding Bind(const oxi_tensor& t) const;
  // A binding of bytes [offset, offset + size) of an internal buffer.
  Binding BindRange(const VkBuf* b, uint64_t offset, uint64_t size) const;
  // Records one dispatch of `groups` workgroups (split over x and y where
  // there are more than the device takes in one dimension) with the
  // operands' push constants (rem and stride of each, in order) first,
  // then `params`.
  sdk::Status Dispatch(Shader shader, const std::vector<Binding>& operands,
                       const PushConstants& params, uint64_t groups);
  // Submits what was recorded and waits; an error when a shader flagged
  // invalid data (`what` names the ops).
  sdk::Status Flush(const std::string& what);
  // A scratch buffer of at least `size` bytes owned by the device (flushes
  // first when it has to grow, since recorded work may still use it).
  sdk::StatusOr<VkBuf*> Scratch(int slot, uint64_t size);

 private:
  Device(VulkanInstance* vi, const PhysicalDevice& pd) : vi_(vi), api_(vi->api), pd_(pd) {}
  sdk::Status Init();
  sdk::StatusOr<VkPipeline> Pipeline(Shader shader);
  sdk::Status Begin();
  sdk::Status SubmitAndWait();
  // Runs `record` in a one-off command buffer now (transfers of non-mapped memory).
  template <typename F>
  sdk::Status OneOff(F record);
  sdk::StatusOr<VkBuf*> NewBuffer(uint64_t size, bool host_visible);
  sdk::Status Check(VkResult r, const char* what) const;

  VulkanInstance* vi_;
  VkApi& api_;
  PhysicalDevice pd_;
  VkDevice dev_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t device_type_ = 0, host_type_ = 0;
  bool device_mapped_ = false;  // the device-local type is also host-visible and coherent
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout pipeline_layout_ = VK_NULL_HANDLE;
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
  VkCommandPool cmd_pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  std::map<Shader, VkPipeline> pipelines_;
  VkBuf* dummy_ = nullptr;
  VkBuf* error_word_ = nullptr;
  VkBuf* staging_ = nullptr;
  std::vector<VkBuf*> scratch_;
  bool recording_ = false;
  uint32_t sets_used_ = 0;
  uint32_t dispatches_ = 0;
};

}  // namespace vulkan
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_BACKENDS_VULKAN_VK_DEVICE_H_
