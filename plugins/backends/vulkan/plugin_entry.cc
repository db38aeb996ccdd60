// The Vulkan backend's descriptor and entry symbol.
#include "oxinfer/plugin.hpp"
#include "plugins/backends/vulkan/vulkan_backend.h"

OXINFER_BACKEND_PLUGIN(oxinfer::vulkan::VulkanBackend, "vulkan", "0.1.0",
                       "Vulkan compute shaders (any Vulkan 1.1 device; Mesa's lavapipe on a CPU)",
                       OXI_DEVICE_GPU)
