// Errors from either backend, and from the dispatcher itself, arrive with a
// message naming the op, the backend and the operand.
#include <cmath>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/backend_dispatch.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/backends/dispatch_test_util.h"

namespace oxinfer {
namespace testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

class DispatchErrorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto c = ComposedBackend::Create(ArenaBackend(), PlainCpuBackend(), DispatchOptions{});
    ASSERT_TRUE(c.ok()) << c.status();
    composed_ = std::move(*c);
    cx_ = sdk::Compute(composed_->iface());
    x_ = *UploadAs(cx_, RandomFloats(64, 1), 1, 64, OXI_DTYPE_F32);
    w_ = *UploadAs(cx_, RandomFloats(64 * 64, 2), 64, 64, OXI_DTYPE_F32);
    y_ = *cx_.NewTensor(OXI_DTYPE_F32, 1, 64);
  }
  std::unique_ptr<ComposedBackend> composed_;
  sdk::Compute cx_;
  sdk::OwnedTensor x_, w_, y_;
};

TEST_F(DispatchErrorsTest, TheAcceleratorsMessage) {
  ScopedEnv fail("OXINFER_ARENA_FAIL", "matmul");
  EXPECT_THAT(MessageOf(cx_.MatMul(x_, w_, y_)),
              AllOf(HasSubstr("matmul on arena"), HasSubstr("injected failure")));
}

TEST_F(DispatchErrorsTest, TheCpusMessage) {
  const int32_t bad[1] = {99};
  auto ids = cx_.Upload(bad, OXI_DTYPE_I32, 1, 1);
  ASSERT_TRUE(ids.ok());
  EXPECT_THAT(MessageOf(cx_.SetRows(x_, *ids, w_)),
              AllOf(HasSubstr("set_rows on plain-cpu"), HasSubstr("id 99 outside [0, 64)")));
  // An op the CPU lacks: its refusal.
  EXPECT_THAT(MessageOf(cx_.L2Norm(x_, y_, 1e-6f)),
              AllOf(HasSubstr("l2_norm on plain-cpu"), HasSubstr("not supported")));
}

TEST_F(DispatchErrorsTest, AFreedOrForeignBuffer) {
  sdk::Tensor stale = w_.t;
  w_.buffer.Reset();
  EXPECT_THAT(MessageOf(cx_.MatMul(x_, stale, y_)),
              AllOf(HasSubstr("arena+plain-cpu: matmul operand 1 (w)"),
                    HasSubstr("not a buffer of this backend")));
  sdk::Tensor foreign = x_.t;
  foreign.buffer = reinterpret_cast<oxi_buffer*>(&foreign);
  EXPECT_THAT(MessageOf(cx_.RmsNorm(x_, sdk::Tensor(), foreign, 1e-6f)),
              HasSubstr("rms_norm operand 2 (out): not a buffer of this backend"));
  std::vector<float> host(4);
  EXPECT_THAT(MessageOf(cx_.ReadBytes(stale.buffer, 0, host.data(), 16)),
              HasSubstr("buffer_read: not a buffer of this backend"));
}

TEST_F(DispatchErrorsTest, AnOperandOutsideItsBuffer) {
  sdk::Tensor past = y_.t;
  past.offset = 16;
  EXPECT_THAT(MessageOf(cx_.MatMul(x_, w_, past)),
              HasSubstr("matmul operand 3 (y): bytes [16, 272) outside its buffer of 256 bytes"));
  sdk::Tensor odd = w_.t;
  odd.dtype = OXI_DTYPE_Q8_0;
  odd.cols = 33;
  EXPECT_THAT(MessageOf(cx_.MatMul(x_, odd, y_)),
              HasSubstr("matmul operand 1 (w): dtype 4 (q8_0) with 33 columns has no row size"));
  std::vector<float> host(128);
  EXPECT_THAT(MessageOf(cx_.WriteBytes(y_.buffer.get(), 128, host.data(), 256)),
              HasSubstr("buffer_write: bytes [128, 384) outside the buffer of 256 bytes"));
}

TEST_F(DispatchErrorsTest, AStructLargerThanThisHostKnows) {
  struct Bigger {
    oxi_matmul_args args;
    int64_t newer_field;
  } bigger;
  oxi_op_init(&bigger.args.op, sizeof bigger, OXI_OP_MATMUL);
  bigger.args.x = x_.t, bigger.args.w = w_.t, bigger.args.y = y_.t;
  EXPECT_THAT(MessageOf(cx_.Execute(bigger.args.op)),
              HasSubstr(absl::StrCat("matmul (kind 1): an argument struct of ", sizeof bigger,
                                     " bytes, larger than the ", sizeof(oxi_matmul_args))));
  oxi_op small;
  oxi_op_init(&small, sizeof small, OXI_OP_MATMUL);
  EXPECT_THAT(MessageOf(cx_.Execute(small)),
              HasSubstr("matmul: an argument struct of 16 bytes cannot hold its 4 operands"));
}

TEST_F(DispatchErrorsTest, AnOpKindThisHostDoesNotKnow) {
  // Placed like any other (its header counts its operands); neither runs it.
  struct {
    oxi_op op;
    oxi_tensor x, out;
  } newer = {};
  newer.op = {sizeof newer, 99, 2, 1, 0, 0};
  newer.x = x_.t, newer.out = y_.t;
  EXPECT_THAT(MessageOf(cx_.Execute(newer.op)),
              AllOf(HasSubstr("unknown on plain-cpu"), HasSubstr("not supported")));
  newer.op.struct_size = 4096;
  EXPECT_THAT(MessageOf(cx_.Execute(newer.op)),
              HasSubstr("an argument struct of 4096 bytes, larger than the 1024"));
}

TEST_F(DispatchErrorsTest, TheOpsBeforeAFailureRun) {
  auto a = sdk::Compute::Make<oxi_scale_args>(OXI_OP_SCALE);
  a.x = x_.t, a.out = y_.t, a.scale = 2.0f;
  auto bad = sdk::Compute::Make<oxi_rms_norm_args>(OXI_OP_RMS_NORM);
  bad.x = x_.t, bad.out = w_.t.Rows(0, 1);
  bad.out.offset = 1 << 20;
  const oxi_op* ops[2] = {&a.op, &bad.op};
  char error[512] = {};
  const oxi_backend_iface* b = composed_->iface();
  EXPECT_EQ(b->execute(b->self, ops, 2, error, sizeof error), OXI_OUT_OF_RANGE);
  EXPECT_THAT(error, HasSubstr("rms_norm operand 2 (out)"));
  const std::vector<float> x = ReadFloats(cx_, x_), y = ReadFloats(cx_, y_);
  for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[i], 2.0f * x[i]);
}

// The arena checks every handle and extent on its own too.
TEST(ArenaBackendTest, RefusesHandlesAndBytesNotItsOwn) {
  const oxi_backend_iface* arena = ArenaBackend();
  sdk::Compute cx(arena);
  EXPECT_EQ(arena->buffer_host_ptr, nullptr);
  EXPECT_EQ(arena->buffer_wrap, nullptr);
  EXPECT_EQ(arena->flags & OXI_BACKEND_HOST_MEMORY, 0u);
  auto buffer = cx.Alloc(256);
  ASSERT_TRUE(buffer.ok());
  oxi_buffer* handle = buffer->get();
  char bytes[512] = {};
  EXPECT_THAT(MessageOf(cx.WriteBytes(handle, 200, bytes, 100)),
              HasSubstr("buffer_write: bytes [200, 300) outside its arena buffer of 256 bytes"));
  buffer->Reset();
  EXPECT_THAT(MessageOf(cx.ReadBytes(handle, 0, bytes, 4)),
              HasSubstr("is not a live arena buffer"));
  EXPECT_THAT(MessageOf(cx.WriteBytes(reinterpret_cast<oxi_buffer*>(bytes), 0, bytes, 4)),
              HasSubstr("is not a live arena buffer"));
  auto x = UploadAs(cx, RandomFloats(64, 1), 1, 64, OXI_DTYPE_F32);
  auto y = cx.NewTensor(OXI_DTYPE_F32, 1, 32);
  ASSERT_TRUE(x.ok() && y.ok());
  sdk::Tensor too_long = y->t;
  too_long.cols = 64;
  EXPECT_THAT(MessageOf(cx.RmsNorm(*x, sdk::Tensor(), too_long, 1e-6f)),
              HasSubstr("rms_norm operand out: bytes [0, 256) outside its arena buffer of 128"));
  // Bytes nobody wrote read as NaN (0xff), so a missing copy would show.
  auto fresh = cx.NewTensor(OXI_DTYPE_F32, 1, 4);
  ASSERT_TRUE(fresh.ok());
  for (float v : ReadFloats(cx, *fresh)) EXPECT_TRUE(std::isnan(v));
}

}  // namespace
}  // namespace testing
}  // namespace oxinfer
