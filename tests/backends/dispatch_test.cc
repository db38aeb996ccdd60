// The composed backend (core/backend_dispatch.h) over the arena test
// accelerator and a CPU backend: same results as the CPU alone, copies only
// where an op runs on the other side, the CPU-only paths, shared memory.
#include <memory>
#include <vector>

#include "core/backend_dispatch.h"
#include "gtest/gtest.h"
#include "tests/backends/dispatch_test_util.h"
#include "tests/backends/host_accel.h"
#include "tests/backends/mixed_program.h"
#include "tests/support/test_backends.h"

namespace oxinfer {
namespace testing {
namespace {

using dispatch::kAccel;
using dispatch::kCpu;

std::unique_ptr<ComposedBackend> Compose(const oxi_backend_iface* accel,
                                         const oxi_backend_iface* cpu, bool profile = false,
                                         bool check = false) {
  auto c = ComposedBackend::Create(accel, cpu, DispatchOptions{profile, check});
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? std::move(*c) : nullptr;
}

std::vector<std::vector<float>> RunProgram(const oxi_backend_iface* be) {
  sdk::Compute cx(be);
  auto outs = RunMixedProgram(cx);
  EXPECT_TRUE(outs.ok()) << MessageOf(outs.status());
  return outs.ok() ? *outs : std::vector<std::vector<float>>{};
}

TEST(DispatchTest, ArenaPlusCpuMatchesTheCpuAloneBitForBit) {
  const std::vector<std::vector<float>> reference = RunProgram(PlainCpuBackend());
  ASSERT_EQ(reference.size(), 8u);
  for (bool profile : {false, true}) {
    auto composed = Compose(ArenaBackend(), PlainCpuBackend(), profile);
    ASSERT_NE(composed, nullptr);
    EXPECT_STREQ(composed->iface()->device_name, "arena+plain-cpu");
    EXPECT_EQ(composed->iface()->flags & OXI_BACKEND_COMPLETE, OXI_BACKEND_COMPLETE);
    EXPECT_EQ(composed->iface()->buffer_host_ptr(composed->iface()->self, nullptr), nullptr);
    const std::vector<std::vector<float>> got = RunProgram(composed->iface());
    ASSERT_EQ(got.size(), reference.size());
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_FALSE(got[i].empty());
      EXPECT_TRUE(SameBits(got[i], reference[i])) << "output " << i << " profile " << profile;
    }
  }
}

TEST(DispatchTest, TheOpsRunWhereSupported) {
  auto composed = Compose(ArenaBackend(), PlainCpuBackend(), /*profile=*/true);
  RunProgram(composed->iface());
  const dispatch::Profile& p = *composed->profile();
  EXPECT_EQ(p.op(OXI_OP_MATMUL, kAccel).calls, 5);  // the float-weight ones
  EXPECT_EQ(p.op(OXI_OP_MATMUL, kCpu).calls, 1);    // q8_0
  EXPECT_EQ(p.op(OXI_OP_RMS_NORM, kAccel).calls, 3);
  EXPECT_EQ(p.op(OXI_OP_RMS_NORM, kCpu).calls, 0);
  EXPECT_EQ(p.op(OXI_OP_UNARY, kCpu).calls, 1);
  EXPECT_EQ(p.op(OXI_OP_SET_ROWS, kCpu).calls, 1);
  EXPECT_EQ(p.op(OXI_OP_SOFTMAX, kCpu).calls, 1);
  const std::string report = composed->ProfileReport();
  EXPECT_NE(report.find("matmul"), std::string::npos) << report;
  EXPECT_NE(report.find("arena -> plain-cpu"), std::string::npos) << report;
  composed->ResetProfile();
  EXPECT_EQ(composed->profile()->op(OXI_OP_MATMUL, kAccel).calls, 0);
  EXPECT_EQ(composed->ProfileReport(), "");
}

// Every copy is one an op on the other side needs, counted exactly.
TEST(DispatchTest, CopiesOnlyWhereAnOpRunsOnTheOtherSide) {
  auto composed = Compose(ArenaBackend(), PlainCpuBackend(), /*profile=*/true);
  sdk::Compute cx(composed->iface());
  constexpr int64_t kRows = 2, kDim = 64;
  const int64_t act = kRows * kDim * 4;
  auto x = UploadAs(cx, RandomFloats(kRows * kDim, 1), kRows, kDim, OXI_DTYPE_F32);
  auto w1 = UploadAs(cx, RandomFloats(kDim * kDim, 2), kDim, kDim, OXI_DTYPE_F32);
  auto w2 = UploadAs(cx, RandomFloats(kDim * kDim, 3), kDim, kDim, OXI_DTYPE_BF16);
  auto wq = UploadAs(cx, RandomFloats(kDim * kDim, 4), kDim, kDim, OXI_DTYPE_Q8_0);
  ASSERT_TRUE(x.ok() && w1.ok() && w2.ok() && wq.ok());
  std::vector<sdk::OwnedTensor> t;
  for (int i = 0; i < 5; ++i) {
    auto a = cx.NewTensor(OXI_DTYPE_F32, kRows, kDim);
    ASSERT_TRUE(a.ok());
    t.push_back(std::move(*a));
  }
  const dispatch::Profile& p = *composed->profile();
  auto copies = [&](dispatch::Side from) { return p.copies(from).copies; };
  auto bytes = [&](dispatch::Side from) { return p.copies(from).bytes; };

  // Written data is on the arena: its ops there need no copy.
  ASSERT_TRUE(cx.RmsNorm(*x, sdk::Tensor(), t[0], 1e-6f).ok());
  ASSERT_TRUE(cx.MatMul(t[0], *w1, t[1]).ok());
  EXPECT_EQ(copies(kAccel) + copies(kCpu), 0);
  // The CPU's unary needs its input (one copy); its output is not fetched.
  ASSERT_TRUE(cx.Unary(OXI_UNARY_SILU, t[1], t[2]).ok());
  EXPECT_EQ(copies(kAccel), 1);
  EXPECT_EQ(bytes(kAccel), act);
  // Back on the arena: the unary's output comes over.
  ASSERT_TRUE(cx.MatMul(t[2], *w2, t[3]).ok());
  EXPECT_EQ(copies(kCpu), 1);
  EXPECT_EQ(bytes(kCpu), act);
  // q8_0 weights run on the CPU: the input and the weights come over once.
  ASSERT_TRUE(cx.MatMul(t[3], *wq, t[4]).ok());
  EXPECT_EQ(copies(kAccel), 3);
  EXPECT_EQ(bytes(kAccel), act + act + wq->t.extent());
  ASSERT_TRUE(cx.MatMul(t[3], *wq, t[4]).ok());  // both now valid on the CPU too
  EXPECT_EQ(copies(kAccel), 3);
  // Reading results is not a copy between backends.
  EXPECT_EQ(ReadFloats(cx, t[4]).size(), static_cast<size_t>(kRows * kDim));
  EXPECT_EQ(copies(kAccel), 3);
  EXPECT_EQ(copies(kCpu), 1);
  // An in-place op on the CPU over a result only the arena has fetches it.
  ASSERT_TRUE(cx.Scale(t[0], t[0], 2.0f).ok());
  EXPECT_EQ(copies(kAccel), 4);
  EXPECT_EQ(bytes(kAccel), 3 * act + wq->t.extent());
  // A strided output is fetched whole first (two rows: 256 + 128 bytes), so
  // the gaps between its rows keep their bytes.
  ASSERT_TRUE(cx.RmsNorm(t[0].t.Cols(0, 32), sdk::Tensor(), t[0].t.Cols(0, 32), 1e-6f).ok());
  EXPECT_EQ(copies(kCpu), 2);
  EXPECT_EQ(bytes(kCpu), act + (kDim * 4 + 32 * 4));
}

TEST(DispatchTest, WrappedHostMemoryStaysOnTheCpuUntilTheArenaNeedsIt) {
  auto composed = Compose(ArenaBackend(), PlainCpuBackend(), /*profile=*/true);
  sdk::Compute cx(composed->iface());
  alignas(64) static float host[64 * 64];
  const std::vector<float> w = RandomFloats(64 * 64, 9);
  std::copy(w.begin(), w.end(), host);
  auto buffer = cx.Wrap(host, sizeof host);
  ASSERT_TRUE(buffer.ok());
  const sdk::Tensor wt(buffer->get(), 0, OXI_DTYPE_F32, 64, 64);
  auto x = UploadAs(cx, RandomFloats(64, 1), 1, 64, OXI_DTYPE_F32);
  auto y = cx.NewTensor(OXI_DTYPE_F32, 1, 64);
  ASSERT_TRUE(x.ok() && y.ok());
  // The CPU reads it in place: no copy.
  ASSERT_TRUE(cx.Unary(OXI_UNARY_RELU, wt.Rows(0, 1), *y).ok());
  EXPECT_EQ(composed->profile()->copies(kCpu).copies, 0);
  // The arena's matmul brings it over once.
  ASSERT_TRUE(cx.MatMul(*x, wt, *y).ok());
  ASSERT_TRUE(cx.MatMul(*x, wt, *y).ok());
  EXPECT_EQ(composed->profile()->copies(kCpu).copies, 1);
  EXPECT_EQ(composed->profile()->copies(kCpu).bytes, int64_t{sizeof host});
}

TEST(DispatchTest, ReadAndCopyOfBuffersSplitBetweenTheBackends) {
  auto composed = Compose(ArenaBackend(), PlainCpuBackend());
  sdk::Compute cx(composed->iface());
  auto a = cx.NewTensor(OXI_DTYPE_F32, 8, 16, OXI_BUFFER_ZERO);
  auto b = cx.NewTensor(OXI_DTYPE_F32, 8, 16);
  ASSERT_TRUE(a.ok() && b.ok());
  const std::vector<float> v = RandomFloats(8 * 16, 3);
  ASSERT_TRUE(cx.Write(a->t.Rows(0, 4), v.data()).ok());               // rows 0-3 on the arena
  ASSERT_TRUE(cx.Scale(a->t.Rows(0, 2), a->t.Rows(4, 2), 3.0f).ok());  // rows 4-5 on the CPU
  // Rows 6-7 were never written: zeros.
  std::vector<float> expect(8 * 16, 0.0f);
  std::copy(v.begin(), v.begin() + 64, expect.begin());
  for (int i = 0; i < 32; ++i) expect[64 + i] = v[i] * 3.0f;
  EXPECT_TRUE(SameBits(ReadFloats(cx, *a), expect));
  // A copy of the whole (split) buffer, then of a part valid in one place.
  ASSERT_TRUE(cx.CopyBytes(b->buffer.get(), 0, a->buffer.get(), 0, 8 * 16 * 4).ok());
  EXPECT_TRUE(SameBits(ReadFloats(cx, *b), expect));
  ASSERT_TRUE(cx.CopyBytes(b->buffer.get(), 6 * 64, a->buffer.get(), 0, 2 * 64).ok());
  std::copy(v.begin(), v.begin() + 32, expect.begin() + 6 * 16);
  EXPECT_TRUE(SameBits(ReadFloats(cx, *b), expect));
  // Overlapping copy inside one split buffer (rows 3-6 -> 2-5).
  ASSERT_TRUE(cx.CopyBytes(a->buffer.get(), 2 * 64, a->buffer.get(), 3 * 64, 4 * 64).ok());
  std::vector<float> moved = ReadFloats(cx, *a);
  std::vector<float> before = expect;  // b's expectation differs from a's only in rows 6-7
  for (int i = 0; i < 16; ++i) before[6 * 16 + i] = 0.0f;
  for (int i = 0; i < 16; ++i) before[7 * 16 + i] = 0.0f;
  std::vector<float> want = before;
  std::copy(before.begin() + 3 * 16, before.begin() + 7 * 16, want.begin() + 2 * 16);
  EXPECT_TRUE(SameBits(moved, want));
}

TEST(DispatchTest, ABackendWithoutBufferCopyCopiesThroughTheHost) {
  oxi_backend_iface arena = *ArenaBackend();
  arena.buffer_copy = nullptr;  // optional for the registry
  auto composed = Compose(&arena, PlainCpuBackend());
  sdk::Compute cx(composed->iface());
  auto a = UploadAs(cx, RandomFloats(8 * 16, 5), 8, 16, OXI_DTYPE_F32);  // on the arena
  auto b = cx.NewTensor(OXI_DTYPE_F32, 8, 16);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(cx.RmsNorm(*a, sdk::Tensor(), *b, 1e-6f).ok());  // b has an arena replica
  ASSERT_TRUE(cx.CopyBytes(b->buffer.get(), 0, a->buffer.get(), 0, 8 * 16 * 4).ok());
  ASSERT_TRUE(cx.CopyBytes(a->buffer.get(), 64, a->buffer.get(), 0, 4 * 64).ok());  // overlapping
  const std::vector<float> original = RandomFloats(8 * 16, 5);
  EXPECT_TRUE(SameBits(ReadFloats(cx, *b), original));
  std::vector<float> want = original;
  std::copy(original.begin(), original.begin() + 64, want.begin() + 16);
  EXPECT_TRUE(SameBits(ReadFloats(cx, *a), want));
}

TEST(DispatchTest, NothingToComposeIsTheCpuTableItself) {
  auto plain = Compose(nullptr, PlainCpuBackend());
  EXPECT_EQ(plain->iface(), PlainCpuBackend());
  EXPECT_EQ(plain->ProfileReport(), "");
  EXPECT_EQ(plain->CheckReport(), "");
  auto same = Compose(PlainCpuBackend(), PlainCpuBackend());
  EXPECT_EQ(same->iface(), PlainCpuBackend());
  auto checked = Compose(nullptr, PlainCpuBackend(), false, /*check=*/true);
  EXPECT_EQ(checked->iface(), PlainCpuBackend());  // nothing runs elsewhere
}

TEST(DispatchTest, ProfilingTheCpuAlone) {
  auto profiled = Compose(nullptr, PlainCpuBackend(), /*profile=*/true);
  ASSERT_NE(profiled->iface(), PlainCpuBackend());
  EXPECT_STREQ(profiled->iface()->device_name, "plain-cpu");
  const std::vector<std::vector<float>> reference = RunProgram(PlainCpuBackend());
  const std::vector<std::vector<float>> got = RunProgram(profiled->iface());
  ASSERT_EQ(got.size(), reference.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(SameBits(got[i], reference[i]));
  EXPECT_EQ(profiled->profile()->op(OXI_OP_MATMUL, kCpu).calls, 6);
  EXPECT_EQ(profiled->profile()->op(OXI_OP_MATMUL, kCpu).bytes > 0, true);
  const std::string report = profiled->ProfileReport();
  EXPECT_NE(report.find("plain-cpu"), std::string::npos) << report;
  EXPECT_EQ(report.find("copies"), std::string::npos) << report;
}

TEST(DispatchTest, HostMemoryAcceleratorSharesTheCpuBytes) {
  auto composed = Compose(HostAccelBackend(), PlainCpuBackend(), /*profile=*/true);
  EXPECT_NE(composed->iface()->flags & OXI_BACKEND_HOST_MEMORY, 0u);
  const std::vector<std::vector<float>> reference = RunProgram(PlainCpuBackend());
  const std::vector<std::vector<float>> got = RunProgram(composed->iface());
  ASSERT_EQ(got.size(), reference.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(SameBits(got[i], reference[i])) << i;
  const dispatch::Profile& p = *composed->profile();
  EXPECT_EQ(p.op(OXI_OP_RMS_NORM, kAccel).calls, 3);
  EXPECT_EQ(p.copies(kAccel).copies + p.copies(kCpu).copies, 0);
  // Its buffers are host memory.
  sdk::Compute cx(composed->iface());
  auto t = cx.NewTensor(OXI_DTYPE_F32, 1, 4);
  ASSERT_TRUE(t.ok());
  EXPECT_NE(composed->iface()->buffer_host_ptr(composed->iface()->self, t->buffer.get()), nullptr);
}

TEST(DispatchTest, PreferredWeightDtypeIsTheAcceleratorsWhenItTakesTheMatmul) {
  auto composed = Compose(ArenaBackend(), PlainCpuBackend());
  const oxi_backend_iface* b = composed->iface();
  EXPECT_EQ(b->preferred_weight_dtype(b->self, OXI_DTYPE_BF16, 64, 64), OXI_DTYPE_BF16);
  EXPECT_EQ(b->preferred_weight_dtype(b->self, OXI_DTYPE_Q4_0, 64, 64), OXI_DTYPE_Q4_0);
  // The host-memory accelerator asks for F16 where given BF16, and takes it.
  auto host = Compose(HostAccelBackend(), PlainCpuBackend());
  b = host->iface();
  EXPECT_EQ(b->preferred_weight_dtype(b->self, OXI_DTYPE_BF16, 64, 64), OXI_DTYPE_F16);
  EXPECT_EQ(b->preferred_weight_dtype(b->self, OXI_DTYPE_Q8_0, 64, 64), OXI_DTYPE_Q8_0);
}

TEST(DispatchTest, TheTestBackendSpecComposes) {
  auto be = OpenTestBackend(ArenaPath() + "+" + PlainCpuPath());
  ASSERT_TRUE(be.ok()) << be.status();
  EXPECT_EQ((*be)->name(), "arena+plain_cpu");
  ASSERT_NE((*be)->composed(), nullptr);
  const std::vector<std::vector<float>> reference = RunProgram(PlainCpuBackend());
  const std::vector<std::vector<float>> got = RunProgram((*be)->iface());
  ASSERT_EQ(got.size(), reference.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(SameBits(got[i], reference[i]));
  EXPECT_FALSE(OpenTestBackend("a+b+c").ok());
}

}  // namespace
}  // namespace testing
}  // namespace oxinfer
