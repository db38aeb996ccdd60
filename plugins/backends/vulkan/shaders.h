// The compute shaders, compiled from shaders/*.comp to SPIR-V at build time
// (glslc, a genrule in BUILD) and embedded here as words.
#ifndef OXINFER_PLUGINS_BACKENDS_VULKAN_SHADERS_H_
#define OXINFER_PLUGINS_BACKENDS_VULKAN_SHADERS_H_

#include <cstddef>
#include <cstdint>

namespace oxinfer {
namespace vulkan {

// One per shaders/<name>.comp (the X-macro keeps the enum, the names and the
// embedded code in one list).
#define OXI_VK_SHADERS(X) \
  X(quantize_q8)          \
  X(matmul_vec)           \
  X(matmul_tile)          \
  X(get_rows)             \
  X(rms_norm)             \
  X(unary)                \
  X(binary)               \
  X(copy)                 \
  X(softmax)              \
  X(rope)                 \
  X(attention)            \
  X(gated_delta)          \
  X(conv1d)               \
  X(concat)               \
  X(conv2d)               \
  X(group_norm_stats)     \
  X(group_norm_apply)     \
  X(layer_norm)           \
  X(upsample)             \
  X(avg_pool)

enum class Shader {
#define OXI_VK_ENUM(name) name,
  OXI_VK_SHADERS(OXI_VK_ENUM)
#undef OXI_VK_ENUM
};

struct ShaderCode {
  const char* name;
  const uint32_t* words;
  size_t size;  // bytes
};
ShaderCode GetShaderCode(Shader s);

}  // namespace vulkan
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_BACKENDS_VULKAN_SHADERS_H_
