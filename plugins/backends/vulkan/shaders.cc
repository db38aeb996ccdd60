#include "plugins/backends/vulkan/shaders.h"

namespace oxinfer {
namespace vulkan {
namespace {

// const uint32_t k_<name>[] = {...}; per shader, written by the genrule
// :shaders_embedded from the SPIR-V that glslc compiled.
#include "plugins/backends/vulkan/shaders_embedded.inc"

}  // namespace

ShaderCode GetShaderCode(Shader s) {
  switch (s) {
#define OXI_VK_CASE(name) \
  case Shader::name:      \
    return ShaderCode{#name, k_##name, sizeof(k_##name)};
    OXI_VK_SHADERS(OXI_VK_CASE)
#undef OXI_VK_CASE
  }
  return ShaderCode{"?", nullptr, 0};
}

}  // namespace vulkan
}  // namespace oxinfer
