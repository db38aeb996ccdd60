// The CUDA plugin loads on any machine and declines, with the reason, where
// the driver or a GPU is missing; where one is present it loads, describes
// its devices, and runs an op. Modes (argv[2]):
//   missing   OXINFER_CUDA_DRIVER names no file: "no NVIDIA driver: ..."
//   not_cuda  OXINFER_CUDA_DRIVER names a library without the driver API
//   machine   this machine's libcuda.so.1: declined with a reason, or usable
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/plugin_registry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "oxinfer/plugin.hpp"
#include "tests/support/test_backends.h"

namespace oxinfer {
namespace {

using ::testing::HasSubstr;

std::string g_plugin, g_mode;

const PluginRecord& LoadCuda(PluginRegistry* registry) {
  registry->LoadFile(g_plugin).IgnoreError();
  return registry->plugins().back();
}

TEST(CudaPlugin, DeclinesOrRunsWithTheReason) {
  PluginRegistry registry;
  const PluginRecord& r = LoadCuda(&registry);
  EXPECT_EQ(r.name, "cuda");
  EXPECT_EQ(r.kind, OXI_PLUGIN_BACKEND);
  if (g_mode == "missing") {
    EXPECT_EQ(r.state, PluginState::kDeclined);
    EXPECT_THAT(r.reason, HasSubstr("no NVIDIA driver: /nonexistent/libcuda.so.1"));
    return;
  }
  if (g_mode == "not_cuda") {
    EXPECT_EQ(r.state, PluginState::kDeclined);
    EXPECT_THAT(r.reason, HasSubstr("the CUDA driver lacks cuInit"));
    return;
  }
  ASSERT_EQ(g_mode, "machine");
  if (r.state == PluginState::kDeclined) {
    // No GPU here: the reason names the driver or the device, and the host
    // falls back to the CPU.
    EXPECT_THAT(r.reason, ::testing::AnyOf(HasSubstr("no NVIDIA driver"), HasSubstr("cuInit"),
                                           HasSubstr("no device")));
    std::printf("[ skipped ] no usable CUDA GPU here: %s\n", r.reason.c_str());
    return;
  }
  ASSERT_EQ(r.state, PluginState::kLoaded) << r.reason;
  EXPECT_EQ(r.backend.device_kind, OXI_DEVICE_GPU);
  EXPECT_GE(r.backend.devices.size(), 1u);
  ASSERT_TRUE(r.backend.device.has_value());
  EXPECT_FALSE(r.backend.device->name.empty());
  EXPECT_EQ(r.backend.prefill_chunk, 512);

  // One matmul on the device against the host's sum.
  sdk::Compute cx(r.backend_iface());
  const int64_t m = 3, k = 64, n = 5;
  std::vector<float> x(m * k), w(n * k), y(m * n, NAN);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.1f * i);
  for (size_t i = 0; i < w.size(); ++i) w[i] = std::cos(0.07f * i);
  auto xb = cx.Alloc(x.size() * 4);
  auto wb = cx.Alloc(w.size() * 4);
  auto yb = cx.Alloc(y.size() * 4);
  ASSERT_TRUE(xb.ok() && wb.ok() && yb.ok());
  sdk::Tensor xt(xb->get(), 0, OXI_DTYPE_F32, m, k), wt(wb->get(), 0, OXI_DTYPE_F32, n, k),
      yt(yb->get(), 0, OXI_DTYPE_F32, m, n);
  ASSERT_TRUE(cx.Write(xt, x.data()).ok());
  ASSERT_TRUE(cx.Write(wt, w.data()).ok());
  oxi_matmul_args a;
  oxi_op_init(&a.op, sizeof a, OXI_OP_MATMUL);
  a.x = xt, a.w = wt, a.y = yt;
  ASSERT_EQ(r.backend_iface()->supports(r.backend_iface()->self, &a.op), 1);
  const oxi_op* ops[] = {&a.op};
  char err[512] = {0};
  ASSERT_EQ(r.backend_iface()->execute(r.backend_iface()->self, ops, 1, err, sizeof err), OXI_OK)
      << err;
  ASSERT_TRUE(cx.Read(yt, y.data()).ok());
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double ref = 0;
      for (int64_t c = 0; c < k; ++c) ref += double(x[i * k + c]) * w[j * k + c];
      EXPECT_NEAR(y[i * n + j], ref, 1e-4) << i << "," << j;
    }
  }
}

// A kind this backend does not know is declined, so the CPU runs it.
TEST(CudaPlugin, UnknownKindsAreNotSupported) {
  PluginRegistry registry;
  const PluginRecord& r = LoadCuda(&registry);
  if (r.state != PluginState::kLoaded) GTEST_SKIP() << r.reason;
  oxi_op op{};
  op.struct_size = sizeof op;
  op.kind = OXI_OP_KIND_COUNT + 3;
  EXPECT_EQ(r.backend_iface()->supports(r.backend_iface()->self, &op), 0);
}

}  // namespace
}  // namespace oxinfer

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s liboxinfer_cuda.so missing|not_cuda|machine\n", argv[0]);
    return 2;
  }
  oxinfer::g_plugin = oxinfer::testing::Runfile(argv[1]);
  oxinfer::g_mode = argv[2];
  if (oxinfer::g_mode == "missing") setenv("OXINFER_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
  if (oxinfer::g_mode == "not_cuda") setenv("OXINFER_CUDA_DRIVER", "libc.so.6", 1);
  return RUN_ALL_TESTS();
}
