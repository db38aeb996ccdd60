// The process's Vulkan instance and the devices it sees, created once (the
// plugin's score asks first; the backend reuses it). Declines carry the
// reason: no loader, no driver, no device.
#ifndef OXINFER_PLUGINS_BACKENDS_VULKAN_VK_INSTANCE_H_
#define OXINFER_PLUGINS_BACKENDS_VULKAN_VK_INSTANCE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "plugins/backends/vulkan/vk_api.h"

namespace oxinfer {
namespace vulkan {

struct PhysicalDevice {
  VkPhysicalDevice handle = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties props{};
  std::string name;    // "llvmpipe (LLVM 15.0.6, 256 bits)"
  std::string driver;  // "Vulkan 1.3.230, driver 0x5800006, cpu"
  const char* type = "other";  // "discrete", "integrated", "virtual", "cpu"
  uint32_t subgroup_size = 0;
  uint64_t memory = 0;  // bytes of the device-local heaps
  uint32_t compute_family = 0;
  bool usable = false;  // Vulkan 1.1 and a compute queue
};

struct VulkanInstance {
  VkApi api;
  VkInstance instance = VK_NULL_HANDLE;
  std::vector<PhysicalDevice> devices;  // usable ones, in the loader's order
};

// The instance, or null with the reason (kept: later calls say the same).
VulkanInstance* GetVulkanInstance(std::string* reason);

}  // namespace vulkan
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_BACKENDS_VULKAN_VK_INSTANCE_H_
