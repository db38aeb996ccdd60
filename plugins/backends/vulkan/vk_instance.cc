#include "plugins/backends/vulkan/vk_instance.h"

#include <cstdio>

namespace oxinfer {
namespace vulkan {
namespace {

const char* TypeName(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
    default: return "other";
  }
}

std::string VersionString(uint32_t v) {
  char s[48];
  std::snprintf(s, sizeof s, "%u.%u.%u", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v),
                VK_API_VERSION_PATCH(v));
  return s;
}

PhysicalDevice Describe(const VkApi& api, VkPhysicalDevice h) {
  PhysicalDevice d;
  d.handle = h;
  api.vkGetPhysicalDeviceProperties(h, &d.props);
  d.name = d.props.deviceName;
  d.type = TypeName(d.props.deviceType);
  VkPhysicalDeviceSubgroupProperties sub{};
  sub.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
  VkPhysicalDeviceDriverProperties drv{};
  drv.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
  sub.pNext = &drv;
  VkPhysicalDeviceProperties2 p2{};
  p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  p2.pNext = &sub;
  api.vkGetPhysicalDeviceProperties2(h, &p2);
  d.subgroup_size = sub.subgroupSize;
  const std::string driver_name = drv.driverName[0] != '\0' ? drv.driverName : "driver";
  d.driver = "Vulkan " + VersionString(d.props.apiVersion) + ", " + driver_name +
             (drv.driverInfo[0] != '\0' ? std::string(" ") + drv.driverInfo : std::string()) +
             ", " + d.type + " device";
  VkPhysicalDeviceMemoryProperties mem{};
  api.vkGetPhysicalDeviceMemoryProperties(h, &mem);
  for (uint32_t i = 0; i < mem.memoryHeapCount; ++i) {
    if (mem.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) d.memory += mem.memoryHeaps[i].size;
  }
  uint32_t n = 0;
  api.vkGetPhysicalDeviceQueueFamilyProperties(h, &n, nullptr);
  std::vector<VkQueueFamilyProperties> fam(n);
  api.vkGetPhysicalDeviceQueueFamilyProperties(h, &n, fam.data());
  for (uint32_t i = 0; i < n; ++i) {
    if (fam[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      d.compute_family = i;
      d.usable = d.props.apiVersion >= VK_API_VERSION_1_1;
      break;
    }
  }
  return d;
}

VulkanInstance* Create(std::string* reason) {
  auto* vi = new VulkanInstance();
  if (!OpenLoader(&vi->api, reason)) return nullptr;
  uint32_t loader_version = VK_API_VERSION_1_0;
  if (vi->api.vkEnumerateInstanceVersion != nullptr) {
    vi->api.vkEnumerateInstanceVersion(&loader_version);
  }
  if (loader_version < VK_API_VERSION_1_1) {
    *reason = "the Vulkan loader speaks Vulkan " + VersionString(loader_version) +
              "; 1.1 or later is needed";
    return nullptr;
  }
  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "oxinfer";
  app.pEngineName = "oxinfer";
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo ci{};
  ci.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  ci.pApplicationInfo = &app;
  const VkResult r = vi->api.vkCreateInstance(&ci, nullptr, &vi->instance);
  if (r != VK_SUCCESS) {
    *reason = std::string("no Vulkan device: vkCreateInstance failed (") + VkResultName(r) +
              "; is a Vulkan driver installed? Mesa's lavapipe: mesa-vulkan-drivers)";
    return nullptr;
  }
  if (!LoadInstanceFns(&vi->api, vi->instance, reason)) return nullptr;
  uint32_t n = 0;
  vi->api.vkEnumeratePhysicalDevices(vi->instance, &n, nullptr);
  std::vector<VkPhysicalDevice> handles(n);
  if (n > 0) vi->api.vkEnumeratePhysicalDevices(vi->instance, &n, handles.data());
  for (uint32_t i = 0; i < n; ++i) {
    PhysicalDevice d = Describe(vi->api, handles[i]);
    if (d.usable) vi->devices.push_back(d);
  }
  if (vi->devices.empty()) {
    *reason = n == 0 ? "no Vulkan device (the loader found no driver with a device; Mesa's "
                       "lavapipe: mesa-vulkan-drivers)"
                     : "no Vulkan device with Vulkan 1.1 and a compute queue";
    return nullptr;
  }
  return vi;
}

}  // namespace

VulkanInstance* GetVulkanInstance(std::string* reason) {
  static std::string* why = new std::string();
  static VulkanInstance* instance = Create(why);
  if (instance == nullptr) *reason = *why;
  return instance;
}

}  // namespace vulkan
}  // namespace oxinfer
