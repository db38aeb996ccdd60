// The Vulkan entry points this backend calls, fetched at run time: the
// loader (libvulkan.so.1) is opened with dlopen and every function comes from
// vkGetInstanceProcAddr / vkGetDeviceProcAddr, so a machine without the
// loader or without a device gets a plugin that declines with the reason
// instead of one that cannot be loaded.
#ifndef OXINFER_PLUGINS_BACKENDS_VULKAN_VK_API_H_
#define OXINFER_PLUGINS_BACKENDS_VULKAN_VK_API_H_

#include <string>

#include <vulkan/vulkan.h>

namespace oxinfer {
namespace vulkan {

#define OXI_VK_INSTANCE_FNS(X)                 \
  X(vkDestroyInstance)                         \
  X(vkEnumeratePhysicalDevices)                \
  X(vkGetPhysicalDeviceProperties)             \
  X(vkGetPhysicalDeviceProperties2)            \
  X(vkGetPhysicalDeviceFeatures2)              \
  X(vkGetPhysicalDeviceMemoryProperties)       \
  X(vkGetPhysicalDeviceQueueFamilyProperties)  \
  X(vkEnumerateDeviceExtensionProperties)      \
  X(vkCreateDevice)                            \
  X(vkGetDeviceProcAddr)

#define OXI_VK_DEVICE_FNS(X)        \
  X(vkDestroyDevice)                \
  X(vkGetDeviceQueue)               \
  X(vkCreateBuffer)                 \
  X(vkDestroyBuffer)                \
  X(vkGetBufferMemoryRequirements)  \
  X(vkAllocateMemory)               \
  X(vkFreeMemory)                   \
  X(vkBindBufferMemory)             \
  X(vkMapMemory)                    \
  X(vkUnmapMemory)                  \
  X(vkCreateShaderModule)           \
  X(vkDestroyShaderModule)          \
  X(vkCreateDescriptorSetLayout)    \
  X(vkDestroyDescriptorSetLayout)   \
  X(vkCreatePipelineLayout)         \
  X(vkDestroyPipelineLayout)        \
  X(vkCreateComputePipelines)       \
  X(vkDestroyPipeline)              \
  X(vkCreateDescriptorPool)         \
  X(vkDestroyDescriptorPool)        \
  X(vkResetDescriptorPool)          \
  X(vkAllocateDescriptorSets)       \
  X(vkUpdateDescriptorSets)         \
  X(vkCreateCommandPool)            \
  X(vkDestroyCommandPool)           \
  X(vkAllocateCommandBuffers)       \
  X(vkResetCommandBuffer)           \
  X(vkBeginCommandBuffer)           \
  X(vkEndCommandBuffer)             \
  X(vkCmdBindPipeline)              \
  X(vkCmdBindDescriptorSets)        \
  X(vkCmdPushConstants)             \
  X(vkCmdDispatch)                  \
  X(vkCmdPipelineBarrier)           \
  X(vkCmdCopyBuffer)                \
  X(vkQueueSubmit)                  \
  X(vkCreateFence)                  \
  X(vkDestroyFence)                 \
  X(vkWaitForFences)                \
  X(vkResetFences)

struct VkApi {
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
  PFN_vkCreateInstance vkCreateInstance = nullptr;
  PFN_vkEnumerateInstanceVersion vkEnumerateInstanceVersion = nullptr;
#define OXI_VK_MEMBER(name) PFN_##name name = nullptr;
  OXI_VK_INSTANCE_FNS(OXI_VK_MEMBER)
  OXI_VK_DEVICE_FNS(OXI_VK_MEMBER)
#undef OXI_VK_MEMBER
};

// Opens the loader (OXINFER_VULKAN_LOADER, else libvulkan.so.1) once per
// process and fetches the global entry points. False with the reason when
// there is no loader.
bool OpenLoader(VkApi* api, std::string* reason);
// The instance-level entry points of `instance`; false naming a missing one.
bool LoadInstanceFns(VkApi* api, VkInstance instance, std::string* reason);
// The device-level entry points of `device`; false naming a missing one.
bool LoadDeviceFns(VkApi* api, VkDevice device, std::string* reason);

// "VK_ERROR_OUT_OF_DEVICE_MEMORY" and the like.
const char* VkResultName(VkResult r);

}  // namespace vulkan
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_BACKENDS_VULKAN_VK_API_H_
