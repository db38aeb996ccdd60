// The operations the Vulkan backend runs: which calls it takes (SupportsOp,
// from the op alone, as supports() must) and how each is recorded
// (EncodeOp: its dispatches into the device's command buffer).
#ifndef OXINFER_PLUGINS_BACKENDS_VULKAN_OPS_H_
#define OXINFER_PLUGINS_BACKENDS_VULKAN_OPS_H_

#include <cstdint>

#include "oxinfer/plugin.hpp"
#include "plugins/backends/vulkan/vk_device.h"

namespace oxinfer {
namespace vulkan {

// Limits of the device a call would run on.
struct Limits {
  uint64_t max_range = 0;  // maxStorageBufferRange
  uint64_t align = 4;      // minStorageBufferOffsetAlignment
};

bool SupportsOp(const Limits& limits, const oxi_op& op);
sdk::Status EncodeOp(Device* dev, const oxi_op& op);

// ---- shared by the op files ----

// Every present operand fits one binding (the shaders use 32-bit byte
// offsets within it) and has a valid extent.
bool OperandsFit(const Limits& limits, const oxi_op& op);
bool IsFloatOrBlock(int32_t dtype);  // F32, BF16, F16, Q8_0, Q4_0
bool IsF32(const oxi_tensor& t);
bool SameShape(const oxi_tensor& a, const oxi_tensor& b);
// 16-bit elements written two to a word: even columns, word-aligned rows.
bool WordAligned16(const oxi_tensor& t);

// The per-family parts.
bool SupportsMatmul(const oxi_op& op);
sdk::Status EncodeMatmul(Device* dev, const oxi_op& op);
bool SupportsElementwise(const oxi_op& op);
sdk::Status EncodeElementwise(Device* dev, const oxi_op& op);
bool SupportsSequence(const oxi_op& op);
sdk::Status EncodeSequence(Device* dev, const oxi_op& op);
bool SupportsImage(const oxi_op& op);
sdk::Status EncodeImage(Device* dev, const oxi_op& op);

inline uint64_t CeilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
inline uint32_t U32(int64_t v) { return static_cast<uint32_t>(v); }

}  // namespace vulkan
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_BACKENDS_VULKAN_OPS_H_
