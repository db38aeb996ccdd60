#include "plugins/backends/vulkan/vk_device.h"

#include <algorithm>
#include <cstring>

namespace oxinfer {
namespace vulkan {
namespace {

constexpr uint32_t kMaxOperands = 10;  // shaders/common.glsl: buf[10]
constexpr uint32_t kSetsPerPool = 512;
constexpr uint64_t kStagingBytes = uint64_t{16} << 20;

}  // namespace

void Device::Log(const std::string& message) const {
  sdk::Log(sdk::Host(), OXI_LOG_WARNING, "vulkan", message);
}

void PushConstants::F(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  words_.push_back(u);
}

sdk::Status Device::Check(VkResult r, const char* what) const {
  if (r == VK_SUCCESS) return sdk::OkStatus();
  if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY) {
    return sdk::ResourceExhaustedError(sdk::StrCat(what, ": ", VkResultName(r)));
  }
  return sdk::InternalError(sdk::StrCat(what, ": ", VkResultName(r)));
}

sdk::StatusOr<std::unique_ptr<Device>> Device::Create(VulkanInstance* vi, int32_t index) {
  if (index < 0 || index >= static_cast<int32_t>(vi->devices.size())) {
    return sdk::OutOfRangeError(sdk::StrCat("no Vulkan device ", index, " (there are ",
                                            vi->devices.size(), ")"));
  }
  std::unique_ptr<Device> d(new Device(vi, vi->devices[index]));
  OXI_RETURN_IF_ERROR(d->Init());
  return d;
}

sdk::Status Device::Init() {
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo q{};
  q.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  q.queueFamilyIndex = pd_.compute_family;
  q.queueCount = 1;
  q.pQueuePriorities = &priority;
  VkDeviceCreateInfo ci{};
  ci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  ci.queueCreateInfoCount = 1;
  ci.pQueueCreateInfos = &q;
  OXI_RETURN_IF_ERROR(Check(api_.vkCreateDevice(pd_.handle, &ci, nullptr, &dev_), "vkCreateDevice"));
  std::string reason;
  if (!LoadDeviceFns(&api_, dev_, &reason)) return sdk::InternalError(reason);
  api_.vkGetDeviceQueue(dev_, pd_.compute_family, 0, &queue_);

  // Memory: device-local for buffers; host-visible coherent for staging. A
  // device-local type that is host-visible too (lavapipe, integrated GPUs,
  // resizable BAR) is mapped and needs no staging.
  VkPhysicalDeviceMemoryProperties mem{};
  api_.vkGetPhysicalDeviceMemoryProperties(pd_.handle, &mem);
  const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                     VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  int device_type = -1, mapped_type = -1, host_type = -1;
  for (uint32_t i = 0; i < mem.memoryTypeCount; ++i) {
    const VkMemoryPropertyFlags f = mem.memoryTypes[i].propertyFlags;
    const bool local = (f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != 0;
    if (local && device_type < 0) device_type = static_cast<int>(i);
    if (local && (f & host) == host && mapped_type < 0) mapped_type = static_cast<int>(i);
    if ((f & host) == host && host_type < 0) host_type = static_cast<int>(i);
  }
  if (host_type < 0) return sdk::InternalError("no host-visible coherent memory type");
  if (mapped_type >= 0) {
    device_type_ = static_cast<uint32_t>(mapped_type);
    device_mapped_ = true;
  } else {
    device_type_ = static_cast<uint32_t>(device_type >= 0 ? device_type : host_type);
    device_mapped_ = device_type < 0;
  }
  host_type_ = static_cast<uint32_t>(host_type);

  VkDescriptorSetLayoutBinding b[2]{};
  b[0].binding = 0;
  b[0].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  b[0].descriptorCount = kMaxOperands;
  b[0].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  b[1].binding = 1;
  b[1].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  b[1].descriptorCount = 1;
  b[1].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  VkDescriptorSetLayoutCreateInfo lci{};
  lci.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  lci.bindingCount = 2;
  lci.pBindings = b;
  OXI_RETURN_IF_ERROR(Check(api_.vkCreateDescriptorSetLayout(dev_, &lci, nullptr, &set_layout_),
                            "vkCreateDescriptorSetLayout"));
  VkPushConstantRange pcr{};
  pcr.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  pcr.size = std::min<uint32_t>(128, pd_.props.limits.maxPushConstantsSize);
  VkPipelineLayoutCreateInfo plci{};
  plci.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  plci.setLayoutCount = 1;
  plci.pSetLayouts = &set_layout_;
  plci.pushConstantRangeCount = 1;
  plci.pPushConstantRanges = &pcr;
  OXI_RETURN_IF_ERROR(Check(api_.vkCreatePipelineLayout(dev_, &plci, nullptr, &pipeline_layout_),
                            "vkCreatePipelineLayout"));
  VkDescriptorPoolSize ps{};
  ps.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  ps.descriptorCount = kSetsPerPool * (kMaxOperands + 1);
  VkDescriptorPoolCreateInfo dpci{};
  dpci.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  dpci.maxSets = kSetsPerPool;
  dpci.poolSizeCount = 1;
  dpci.pPoolSizes = &ps;
  OXI_RETURN_IF_ERROR(
      Check(api_.vkCreateDescriptorPool(dev_, &dpci, nullptr, &pool_), "vkCreateDescriptorPool"));
  VkCommandPoolCreateInfo cpci{};
  cpci.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  cpci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  cpci.queueFamilyIndex = pd_.compute_family;
  OXI_RETURN_IF_ERROR(
      Check(api_.vkCreateCommandPool(dev_, &cpci, nullptr, &cmd_pool_), "vkCreateCommandPool"));
  VkCommandBufferAllocateInfo cbai{};
  cbai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  cbai.commandPool = cmd_pool_;
  cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cbai.commandBufferCount = 1;
  OXI_RETURN_IF_ERROR(
      Check(api_.vkAllocateCommandBuffers(dev_, &cbai, &cmd_), "vkAllocateCommandBuffers"));
  VkFenceCreateInfo fci{};
  fci.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  OXI_RETURN_IF_ERROR(Check(api_.vkCreateFence(dev_, &fci, nullptr, &fence_), "vkCreateFence"));
  OXI_ASSIGN_OR_RETURN(dummy_, Alloc(256));
  OXI_ASSIGN_OR_RETURN(error_word_, NewBuffer(16, /*host_visible=*/true));
  std::memset(error_word_->mapped, 0, 16);
  if (!device_mapped_) {
    OXI_ASSIGN_OR_RETURN(staging_, NewBuffer(kStagingBytes, /*host_visible=*/true));
  }
  return sdk::OkStatus();
}

Device::~Device() {
  if (dev_ == VK_NULL_HANDLE) return;
  for (VkBuf* s : scratch_) Free(s);
  Free(dummy_);
  Free(error_word_);
  Free(staging_);
  for (auto& p : pipelines_) api_.vkDestroyPipeline(dev_, p.second, nullptr);
  if (fence_) api_.vkDestroyFence(dev_, fence_, nullptr);
  if (cmd_pool_) api_.vkDestroyCommandPool(dev_, cmd_pool_, nullptr);
  if (pool_) api_.vkDestroyDescriptorPool(dev_, pool_, nullptr);
  if (pipeline_layout_) api_.vkDestroyPipelineLayout(dev_, pipeline_layout_, nullptr);
  if (set_layout_) api_.vkDestroyDescriptorSetLayout(dev_, set_layout_, nullptr);
  api_.vkDestroyDevice(dev_, nullptr);
}

sdk::StatusOr<VkBuf*> Device::NewBuffer(uint64_t size, bool host_visible) {
  auto b = std::make_unique<VkBuf>();
  b->size = size;
  b->alloc_size = std::max<uint64_t>((size + 15) / 16 * 16, 16);
  VkBufferCreateInfo bci{};
  bci.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  bci.size = b->alloc_size;
  bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
              VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  OXI_RETURN_IF_ERROR(Check(api_.vkCreateBuffer(dev_, &bci, nullptr, &b->buffer), "vkCreateBuffer"));
  VkMemoryRequirements req{};
  api_.vkGetBufferMemoryRequirements(dev_, b->buffer, &req);
  const uint32_t type = host_visible ? host_type_ : device_type_;
  if ((req.memoryTypeBits & (1u << type)) == 0) {
    api_.vkDestroyBuffer(dev_, b->buffer, nullptr);
    return sdk::InternalError("the buffer cannot live in the chosen memory type");
  }
  VkMemoryAllocateInfo mai{};
  mai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = type;
  const VkResult r = api_.vkAllocateMemory(dev_, &mai, nullptr, &b->memory);
  if (r != VK_SUCCESS) {
    api_.vkDestroyBuffer(dev_, b->buffer, nullptr);
    return Check(r, "vkAllocateMemory");
  }
  api_.vkBindBufferMemory(dev_, b->buffer, b->memory, 0);
  if (host_visible || device_mapped_) {
    void* p = nullptr;
    OXI_RETURN_IF_ERROR(Check(api_.vkMapMemory(dev_, b->memory, 0, VK_WHOLE_SIZE, 0, &p),
                              "vkMapMemory"));
    b->mapped = static_cast<uint8_t*>(p);
  }
  return b.release();
}

sdk::StatusOr<VkBuf*> Device::Alloc(uint64_t size) {
  if (size > pd_.props.limits.maxStorageBufferRange && size > (uint64_t{1} << 32)) {
    // Shaders address bytes with 32-bit offsets within a binding.
    return sdk::ResourceExhaustedError(sdk::StrCat("a buffer of ", size, " bytes is over 4 GiB"));
  }
  return NewBuffer(size, /*host_visible=*/false);
}

void Device::Free(VkBuf* b) {
  if (b == nullptr) return;
  if (b->mapped != nullptr) api_.vkUnmapMemory(dev_, b->memory);
  api_.vkDestroyBuffer(dev_, b->buffer, nullptr);
  api_.vkFreeMemory(dev_, b->memory, nullptr);
  delete b;
}

template <typename F>
sdk::Status Device::OneOff(F record) {
  if (recording_) OXI_RETURN_IF_ERROR(Flush("queued work"));
  OXI_RETURN_IF_ERROR(Begin());
  record(cmd_);
  return Flush("a transfer");
}

sdk::Status Device::Write(VkBuf* dst, uint64_t offset, const void* src, uint64_t size) {
  if (offset > dst->size || size > dst->size - offset) {
    return sdk::OutOfRangeError(
        sdk::StrCat("bytes [", offset, ", ", offset + size, ") outside a buffer of ", dst->size));
  }
  if (dst->mapped != nullptr) {
    if (recording_) OXI_RETURN_IF_ERROR(Flush("queued work"));
    std::memcpy(dst->mapped + offset, src, size);
    return sdk::OkStatus();
  }
  for (uint64_t done = 0; done < size; done += kStagingBytes) {
    const uint64_t n = std::min(kStagingBytes, size - done);
    if (recording_) OXI_RETURN_IF_ERROR(Flush("queued work"));
    std::memcpy(staging_->mapped, static_cast<const uint8_t*>(src) + done, n);
    OXI_RETURN_IF_ERROR(OneOff([&](VkCommandBuffer cmd) {
      VkBufferCopy c{0, offset + done, n};
      api_.vkCmdCopyBuffer(cmd, staging_->buffer, dst->buffer, 1, &c);
    }));
  }
  return sdk::OkStatus();
}

sdk::Status Device::Read(VkBuf* src, uint64_t offset, void* dst, uint64_t size) {
  if (offset > src->size || size > src->size - offset) {
    return sdk::OutOfRangeError(
        sdk::StrCat("bytes [", offset, ", ", offset + size, ") outside a buffer of ", src->size));
  }
  if (recording_) OXI_RETURN_IF_ERROR(Flush("queued work"));
  if (src->mapped != nullptr) {
    std::memcpy(dst, src->mapped + offset, size);
    return sdk::OkStatus();
  }
  for (uint64_t done = 0; done < size; done += kStagingBytes) {
    const uint64_t n = std::min(kStagingBytes, size - done);
    OXI_RETURN_IF_ERROR(OneOff([&](VkCommandBuffer cmd) {
      VkBufferCopy c{offset + done, 0, n};
      api_.vkCmdCopyBuffer(cmd, src->buffer, staging_->buffer, 1, &c);
    }));
    std::memcpy(static_cast<uint8_t*>(dst) + done, staging_->mapped, n);
  }
  return sdk::OkStatus();
}

sdk::Status Device::Copy(VkBuf* dst, uint64_t dst_offset, VkBuf* src, uint64_t src_offset,
                         uint64_t size) {
  if (src_offset > src->size || size > src->size - src_offset || dst_offset > dst->size ||
      size > dst->size - dst_offset) {
    return sdk::OutOfRangeError(sdk::StrCat("a copy of ", size, " bytes outside its buffers"));
  }
  if (size == 0) return sdk::OkStatus();
  const bool overlap = dst == src && src_offset < dst_offset + size && dst_offset < src_offset + size;
  if (overlap || (dst->mapped != nullptr && src->mapped != nullptr)) {
    if (recording_) OXI_RETURN_IF_ERROR(Flush("queued work"));
    if (dst->mapped != nullptr && src->mapped != nullptr) {
      std::memmove(dst->mapped + dst_offset, src->mapped + src_offset, size);
      return sdk::OkStatus();
    }
    std::vector<uint8_t> tmp(size);
    OXI_RETURN_IF_ERROR(Read(src, src_offset, tmp.data(), size));
    return Write(dst, dst_offset, tmp.data(), size);
  }
  return OneOff([&](VkCommandBuffer cmd) {
    VkBufferCopy c{src_offset, dst_offset, size};
    api_.vkCmdCopyBuffer(cmd, src->buffer, dst->buffer, 1, &c);
  });
}

Binding Device::BindRange(const VkBuf* b, uint64_t offset, uint64_t size) const {
  Binding out;
  out.buf = b;
  const uint64_t align = std::max<uint64_t>(pd_.props.limits.minStorageBufferOffsetAlignment, 4);
  out.bind_offset = offset / align * align;
  out.rem = static_cast<uint32_t>(offset - out.bind_offset);
  const uint64_t want = (out.rem + size + 3) / 4 * 4;
  out.range = std::max<uint64_t>(std::min(want, b->alloc_size - out.bind_offset), 4);
  return out;
}

Binding Device::Bind(const oxi_tensor& t) const {
  if (t.buffer == nullptr) return BindRange(dummy_, 0, 16);
  const int64_t extent = oxi_tensor_extent(&t);
  Binding b = BindRange(AsVkBuf(t.buffer), t.offset, static_cast<uint64_t>(std::max<int64_t>(extent, 0)));
  b.stride = static_cast<uint32_t>(oxi_tensor_stride(&t));
  return b;
}

sdk::StatusOr<VkBuf*> Device::Scratch(int slot, uint64_t size) {
  if (static_cast<int>(scratch_.size()) <= slot) scratch_.resize(slot + 1, nullptr);
  VkBuf*& s = scratch_[slot];
  if (s != nullptr && s->size >= size) return s;
  if (recording_) OXI_RETURN_IF_ERROR(Flush("queued work"));
  Free(s);
  s = nullptr;
  OXI_ASSIGN_OR_RETURN(s, Alloc(std::max<uint64_t>(size, uint64_t{1} << 16) * 3 / 2));
  return s;
}

sdk::StatusOr<VkPipeline> Device::Pipeline(Shader shader) {
  auto it = pipelines_.find(shader);
  if (it != pipelines_.end()) return it->second;
  const ShaderCode code = GetShaderCode(shader);
  VkShaderModuleCreateInfo smci{};
  smci.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  smci.codeSize = code.size;
  smci.pCode = code.words;
  VkShaderModule module = VK_NULL_HANDLE;
  OXI_RETURN_IF_ERROR(
      Check(api_.vkCreateShaderModule(dev_, &smci, nullptr, &module), "vkCreateShaderModule"));
  VkComputePipelineCreateInfo cpci{};
  cpci.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  cpci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cpci.stage.module = module;
  cpci.stage.pName = "main";
  cpci.layout = pipeline_layout_;
  VkPipeline p = VK_NULL_HANDLE;
  const VkResult r = api_.vkCreateComputePipelines(dev_, VK_NULL_HANDLE, 1, &cpci, nullptr, &p);
  api_.vkDestroyShaderModule(dev_, module, nullptr);
  OXI_RETURN_IF_ERROR(Check(r, sdk::StrCat("compiling shader ", code.name).c_str()));
  pipelines_[shader] = p;
  return p;
}

sdk::Status Device::Begin() {
  OXI_RETURN_IF_ERROR(Check(api_.vkResetCommandBuffer(cmd_, 0), "vkResetCommandBuffer"));
  VkCommandBufferBeginInfo bi{};
  bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  OXI_RETURN_IF_ERROR(Check(api_.vkBeginCommandBuffer(cmd_, &bi), "vkBeginCommandBuffer"));
  recording_ = true;
  dispatches_ = 0;
  return sdk::OkStatus();
}

sdk::Status Device::Dispatch(Shader shader, const std::vector<Binding>& operands,
                             const PushConstants& params, uint64_t groups) {
  if (operands.size() > kMaxOperands) return sdk::InternalError("too many operands");
  OXI_ASSIGN_OR_RETURN(VkPipeline pipeline, Pipeline(shader));
  if (sets_used_ >= kSetsPerPool) OXI_RETURN_IF_ERROR(Flush("queued work"));
  if (!recording_) OXI_RETURN_IF_ERROR(Begin());
  VkDescriptorSetAllocateInfo dsai{};
  dsai.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  dsai.descriptorPool = pool_;
  dsai.descriptorSetCount = 1;
  dsai.pSetLayouts = &set_layout_;
  VkDescriptorSet set = VK_NULL_HANDLE;
  OXI_RETURN_IF_ERROR(Check(api_.vkAllocateDescriptorSets(dev_, &dsai, &set), "vkAllocateDescriptorSets"));
  ++sets_used_;
  VkDescriptorBufferInfo infos[kMaxOperands + 1];
  for (uint32_t i = 0; i < kMaxOperands; ++i) {
    const Binding b = i < operands.size() ? operands[i] : BindRange(dummy_, 0, 16);
    const VkBuf* buf = b.buf != nullptr ? b.buf : dummy_;
    infos[i] = VkDescriptorBufferInfo{buf->buffer, b.bind_offset, b.range};
  }
  infos[kMaxOperands] = VkDescriptorBufferInfo{error_word_->buffer, 0, 16};
  VkWriteDescriptorSet w[2]{};
  w[0].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
  w[0].dstSet = set;
  w[0].dstBinding = 0;
  w[0].descriptorCount = kMaxOperands;
  w[0].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  w[0].pBufferInfo = infos;
  w[1] = w[0];
  w[1].dstBinding = 1;
  w[1].descriptorCount = 1;
  w[1].pBufferInfo = &infos[kMaxOperands];
  api_.vkUpdateDescriptorSets(dev_, 2, w, 0, nullptr);

  std::vector<uint32_t> pc;
  for (const Binding& b : operands) {
    pc.push_back(b.rem);
    pc.push_back(b.stride);
  }
  pc.insert(pc.end(), params.words().begin(), params.words().end());
  if (pc.size() * 4 > 128) return sdk::InternalError("push constants over 128 bytes");

  if (dispatches_ > 0) {
    VkMemoryBarrier mb{};
    mb.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT;
    mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    api_.vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, nullptr, 0,
                              nullptr);
  }
  api_.vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  api_.vkCmdBindDescriptorSets(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_layout_, 0, 1, &set,
                               0, nullptr);
  if (!pc.empty()) {
    api_.vkCmdPushConstants(cmd_, pipeline_layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                            static_cast<uint32_t>(pc.size() * 4), pc.data());
  }
  const uint64_t max_x = std::min<uint32_t>(pd_.props.limits.maxComputeWorkGroupCount[0], 65535);
  const uint64_t gx = std::max<uint64_t>(std::min(groups, max_x), 1);
  const uint64_t gy = (groups + gx - 1) / gx;
  if (gy > pd_.props.limits.maxComputeWorkGroupCount[1]) {
    return sdk::InvalidArgumentError(sdk::StrCat(groups, " workgroups are too many"));
  }
  if (groups > 0) api_.vkCmdDispatch(cmd_, static_cast<uint32_t>(gx), static_cast<uint32_t>(gy), 1);
  ++dispatches_;
  return sdk::OkStatus();
}

sdk::Status Device::SubmitAndWait() {
  recording_ = false;
  OXI_RETURN_IF_ERROR(Check(api_.vkEndCommandBuffer(cmd_), "vkEndCommandBuffer"));
  VkSubmitInfo si{};
  si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cmd_;
  OXI_RETURN_IF_ERROR(Check(api_.vkQueueSubmit(queue_, 1, &si, fence_), "vkQueueSubmit"));
  const VkResult r = api_.vkWaitForFences(dev_, 1, &fence_, VK_TRUE, UINT64_MAX);
  api_.vkResetFences(dev_, 1, &fence_);
  api_.vkResetDescriptorPool(dev_, pool_, 0);
  sets_used_ = 0;
  return Check(r, "vkWaitForFences");
}

sdk::Status Device::Flush(const std::string& what) {
  if (!recording_) return sdk::OkStatus();
  OXI_RETURN_IF_ERROR(SubmitAndWait());
  uint32_t* flag = reinterpret_cast<uint32_t*>(error_word_->mapped);
  if (*flag != 0) {
    *flag = 0;
    return sdk::InvalidArgumentError(
        sdk::StrCat(what, ": an index operand (ids) holds a row outside its table"));
  }
  return sdk::OkStatus();
}

}  // namespace vulkan
}  // namespace oxinfer
