#include "plugins/backends/vulkan/vk_api.h"

#include <dlfcn.h>

#include <cstdlib>

namespace oxinfer {
namespace vulkan {

bool OpenLoader(VkApi* api, std::string* reason) {
  static void* handle = nullptr;
  static std::string error;
  if (handle == nullptr && error.empty()) {
    const char* env = std::getenv("OXINFER_VULKAN_LOADER");
    const char* name = env != nullptr && env[0] != '\0' ? env : "libvulkan.so.1";
    handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      error = std::string("no Vulkan loader (") + (why != nullptr ? why : name) +
              "; Debian's package libvulkan1)";
    }
  }
  if (handle == nullptr) {
    *reason = error;
    return false;
  }
  api->vkGetInstanceProcAddr =
      reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(handle, "vkGetInstanceProcAddr"));
  if (api->vkGetInstanceProcAddr == nullptr) {
    *reason = "the Vulkan loader has no vkGetInstanceProcAddr";
    return false;
  }
  api->vkCreateInstance = reinterpret_cast<PFN_vkCreateInstance>(
      api->vkGetInstanceProcAddr(nullptr, "vkCreateInstance"));
  api->vkEnumerateInstanceVersion = reinterpret_cast<PFN_vkEnumerateInstanceVersion>(
      api->vkGetInstanceProcAddr(nullptr, "vkEnumerateInstanceVersion"));
  if (api->vkCreateInstance == nullptr) {
    *reason = "the Vulkan loader has no vkCreateInstance";
    return false;
  }
  return true;
}

bool LoadInstanceFns(VkApi* api, VkInstance instance, std::string* reason) {
#define OXI_VK_LOAD(name)                                                                   \
  api->name = reinterpret_cast<PFN_##name>(api->vkGetInstanceProcAddr(instance, #name));   \
  if (api->name == nullptr) {                                                               \
    *reason = "the Vulkan instance lacks " #name " (Vulkan 1.1 or later is needed)";       \
    return false;                                                                           \
  }
  OXI_VK_INSTANCE_FNS(OXI_VK_LOAD)
#undef OXI_VK_LOAD
  return true;
}

bool LoadDeviceFns(VkApi* api, VkDevice device, std::string* reason) {
#define OXI_VK_LOAD(name)                                                                 \
  api->name = reinterpret_cast<PFN_##name>(api->vkGetDeviceProcAddr(device, #name));     \
  if (api->name == nullptr) {                                                             \
    *reason = "the Vulkan device lacks " #name;                                           \
    return false;                                                                         \
  }
  OXI_VK_DEVICE_FNS(OXI_VK_LOAD)
#undef OXI_VK_LOAD
  return true;
}

const char* VkResultName(VkResult r) {
  switch (r) {
    case VK_SUCCESS: return "VK_SUCCESS";
    case VK_NOT_READY: return "VK_NOT_READY";
    case VK_TIMEOUT: return "VK_TIMEOUT";
    case VK_INCOMPLETE: return "VK_INCOMPLETE";
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_MEMORY_MAP_FAILED: return "VK_ERROR_MEMORY_MAP_FAILED";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_TOO_MANY_OBJECTS: return "VK_ERROR_TOO_MANY_OBJECTS";
    case VK_ERROR_OUT_OF_POOL_MEMORY: return "VK_ERROR_OUT_OF_POOL_MEMORY";
    default: return "VkResult error";
  }
}

}  // namespace vulkan
}  // namespace oxinfer
