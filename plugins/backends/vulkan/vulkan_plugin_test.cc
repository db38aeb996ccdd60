// The Vulkan plugin as the host sees it: loaded through the registry, it
// declines with the reason where the loader or a device is missing (the
// test's targets take both away: OXINFER_VULKAN_LOADER, VK_ICD_FILENAMES),
// and otherwise lists its devices, answers supports() per call (false for
// kinds it does not know), runs a long recorded sequence in one execute, and
// refuses bad indices with a message.
//
// Usage: vulkan_plugin_test <liboxinfer_vulkan.so> [decline:<text the reason holds>]
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "oxinfer/plugin.hpp"
#include "tests/support/test_backends.h"

namespace oxinfer {
namespace {

std::string g_path, g_expect_decline;

const PluginRecord* Record() {
  auto iface = testing::LoadPluginIface(g_path, OXI_PLUGIN_BACKEND);
  (void)iface;
  for (const PluginRecord& r : testing::TestRegistry().plugins()) {
    if (r.path == g_path) return &r;
  }
  return nullptr;
}

// The table, or null after GTEST_SKIP when this machine has no Vulkan device.
const oxi_backend_iface* Table() {
  const PluginRecord* r = Record();
  if (r == nullptr || r->state != PluginState::kLoaded) return nullptr;
  return r->backend_iface();
}

TEST(VulkanPlugin, LoadsOrDeclinesWithTheReason) {
  const PluginRecord* r = Record();
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->name, "vulkan");
  if (!g_expect_decline.empty()) {
    EXPECT_EQ(r->state, PluginState::kDeclined) << r->reason;
    EXPECT_NE(r->reason.find(g_expect_decline), std::string::npos) << r->reason;
    return;
  }
  if (r->state == PluginState::kDeclined) {
    GTEST_SKIP() << "no Vulkan here: " << r->reason;
  }
  ASSERT_EQ(r->state, PluginState::kLoaded) << r->reason;
  EXPECT_FALSE(r->backend.complete());
  EXPECT_FALSE(r->backend.host_memory());
}

TEST(VulkanPlugin, ListsEveryDevice) {
  const oxi_backend_iface* t = Table();
  if (t == nullptr) GTEST_SKIP() << "no Vulkan device (see the first test)";
  const PluginRecord* r = Record();
  ASSERT_GE(r->backend.devices.size(), 1u);
  for (const DeviceInfo& d : r->backend.devices) {
    EXPECT_FALSE(d.name.empty());
    EXPECT_GT(d.subgroup_size, 0);
    EXPECT_GT(d.memory_total, 0u);
    EXPECT_NE(d.driver.find("Vulkan"), std::string::npos) << d.driver;
    std::printf("vulkan device: %s, subgroup %d, %s\n", d.name.c_str(), d.subgroup_size,
                d.driver.c_str());
  }
  // A GPU backend; a CPU implementation (lavapipe) says so in its device
  // info (kind cpu), so --device auto passes over it (the registry's
  // software_device()).
  EXPECT_EQ(t->device_kind, OXI_DEVICE_GPU);
  const bool lavapipe = r->backend.devices[0].name.find("llvmpipe") != std::string::npos;
  EXPECT_EQ(r->backend.devices[0].kind, lavapipe ? OXI_DEVICE_CPU : OXI_DEVICE_GPU);
  EXPECT_EQ(r->backend.software_device(), r->backend.devices[0].kind == OXI_DEVICE_CPU);
  char error[256] = {0};
  const int32_t n = t->device_count(t->self);
  EXPECT_EQ(t->select_device(t->self, n, error, sizeof error), OXI_OUT_OF_RANGE);
  EXPECT_NE(std::string(error).find("no Vulkan device"), std::string::npos) << error;
  auto choice = testing::TestRegistry().ChooseBackends("vulkan:" + std::to_string(n));
  EXPECT_FALSE(choice.ok());
}

TEST(VulkanPlugin, SupportsUnknownKindsNot) {
  const oxi_backend_iface* t = Table();
  if (t == nullptr) GTEST_SKIP() << "no Vulkan device";
  oxi_op op;
  std::memset(&op, 0, sizeof op);
  op.struct_size = sizeof op;
  for (int kind : {0, static_cast<int>(OXI_OP_KIND_COUNT), 999}) {
    op.kind = static_cast<uint16_t>(kind);
    EXPECT_EQ(t->supports(t->self, &op), 0) << kind;
  }
}

TEST(VulkanPlugin, LongSequenceInOneExecuteAndBadIds) {
  const oxi_backend_iface* t = Table();
  if (t == nullptr) GTEST_SKIP() << "no Vulkan device";
  sdk::Compute cx(t);
  auto buf = cx.Alloc(64 * sizeof(float));
  ASSERT_TRUE(buf.ok()) << buf.status().message();
  const sdk::Tensor x(buf->get(), 0, OXI_DTYPE_F32, 4, 16);
  std::vector<float> ones(64, 1.0f);
  ASSERT_TRUE(cx.Write(x, ones.data()).ok());
  // 700 in-place adds of 0.5: more than one descriptor pool's worth.
  std::vector<oxi_scale_args> ops(700);
  std::vector<const oxi_op*> ptrs;
  for (auto& a : ops) {
    oxi_op_init(&a.op, sizeof a, OXI_OP_SCALE);
    a.x = a.out = x;
    a.scale = 1.0f;
    a.bias = 0.5f;
    ptrs.push_back(&a.op);
  }
  char error[512] = {0};
  ASSERT_EQ(
      t->execute(t->self, ptrs.data(), static_cast<int64_t>(ptrs.size()), error, sizeof error),
      OXI_OK)
      << error;
  std::vector<float> out(64);
  ASSERT_TRUE(cx.Read(x, out.data()).ok());
  for (float v : out) EXPECT_EQ(v, 351.0f);

  auto ids_buf = cx.Alloc(16);
  ASSERT_TRUE(ids_buf.ok());
  const sdk::Tensor ids(ids_buf->get(), 0, OXI_DTYPE_I32, 1, 2);
  const int32_t bad[2] = {1, 7};
  ASSERT_TRUE(cx.Write(ids, bad).ok());
  auto out_buf = cx.Alloc(2 * 16 * sizeof(float));
  ASSERT_TRUE(out_buf.ok());
  oxi_get_rows_args g;
  oxi_op_init(&g.op, sizeof g, OXI_OP_GET_ROWS);
  g.table = x;
  g.ids = ids;
  g.out = sdk::Tensor(out_buf->get(), 0, OXI_DTYPE_F32, 2, 16);
  const oxi_op* one[1] = {&g.op};
  EXPECT_EQ(t->execute(t->self, one, 1, error, sizeof error), OXI_INVALID_ARGUMENT);
  EXPECT_NE(std::string(error).find("outside its table"), std::string::npos) << error;
}

}  // namespace
}  // namespace oxinfer

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s liboxinfer_vulkan.so [decline:TEXT]\n", argv[0]);
    return 2;
  }
  oxinfer::g_path = argv[1];
  if (argc > 2 && std::strncmp(argv[2], "decline:", 8) == 0)
    oxinfer::g_expect_decline = argv[2] + 8;
  return RUN_ALL_TESTS();
}
