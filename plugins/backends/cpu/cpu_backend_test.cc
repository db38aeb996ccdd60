// The CPU variants as plugins and as ABI 2 backends: scores, the exported
// symbol, the table's fields, buffers, device info, supports(), and the
// errors execute() must report (with a message, never a crash).
#include <dlfcn.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/cpu_features.h"
#include "gtest/gtest.h"
#include "plugins/backends/cpu/cpu_test_util.h"

namespace oxinfer {
namespace cpu_test {
namespace {

TEST(CpuPlugins, ScoreAndDecline) {
  const uint64_t features = CpuFeatures();
  bool scalar = false;
  for (const PluginVerdict& v : Verdicts()) {
    SCOPED_TRACE(v.path);
    if (v.name == "cpu-scalar") {
      scalar = true;
      EXPECT_EQ(v.score, 10);
      EXPECT_TRUE(v.loaded);
    } else if (v.name == "cpu-avx2") {
      const uint64_t need = OXI_CPU_X86_64_V3;
      EXPECT_EQ(v.loaded, (features & need) == need) << v.reason;
    } else if (v.name == "cpu-avx512") {
      if ((features & OXI_CPU_X86_64_V4) != OXI_CPU_X86_64_V4) {
        EXPECT_EQ(v.score, 0);
        EXPECT_NE(v.reason.find("lacks"), std::string::npos) << v.reason;
      } else {
        EXPECT_EQ(v.score, 40);
      }
    }
  }
  EXPECT_TRUE(scalar);
}

TEST(CpuPlugins, OnlyTheEntrySymbolIsExported) {
  for (const PluginVerdict& v : Verdicts()) {
    void* h = dlopen(v.path.c_str(), RTLD_NOW | RTLD_NOLOAD);
    ASSERT_NE(h, nullptr) << v.path;
    EXPECT_NE(dlsym(h, OXI_ENTRY_SYMBOL), nullptr);
    EXPECT_EQ(dlsym(h, "_ZN7oxinfer3cpu6scalar12GetInterfaceEPK17oxi_host_services"), nullptr);
    EXPECT_EQ(dlsym(h, "_ZN7oxinfer3cpu4avx212GetInterfaceEPK17oxi_host_services"), nullptr);
    dlclose(h);
  }
}

TEST(CpuBackend, TableFields) {
  ASSERT_FALSE(Variants().empty());
  for (const Variant& v : Variants()) {
    SCOPED_TRACE(v.name);
    const oxi_backend_iface* b = v.iface;
    EXPECT_EQ(b->struct_size, sizeof(oxi_backend_iface));
    EXPECT_EQ(std::string(b->device_name), v.name);
    EXPECT_EQ(b->device_kind, OXI_DEVICE_CPU);
    EXPECT_EQ(b->flags, OXI_BACKEND_COMPLETE | OXI_BACKEND_HOST_MEMORY);
    for (const void* f :
         {(const void*)b->buffer_alloc, (const void*)b->buffer_wrap, (const void*)b->buffer_free,
          (const void*)b->buffer_host_ptr, (const void*)b->buffer_write,
          (const void*)b->buffer_read, (const void*)b->buffer_copy, (const void*)b->supports,
          (const void*)b->execute, (const void*)b->preferred_weight_dtype,
          (const void*)b->device_info}) {
      EXPECT_NE(f, nullptr);
    }
  }
}

TEST(CpuBackend, DeviceInfo) {
  for (const Variant& v : Variants()) {
    SCOPED_TRACE(v.name);
    oxi_device_info info;
    std::memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    ASSERT_EQ(v.iface->device_info(v.iface->self, &info), OXI_OK);
    ASSERT_NE(info.name, nullptr);
    EXPECT_GT(std::strlen(info.name), 0u);
    EXPECT_EQ(info.kind, OXI_DEVICE_CPU);
    EXPECT_GE(info.compute_units, 1);
    EXPECT_GT(info.memory_total, 0u);
    EXPECT_LE(info.memory_free, info.memory_total);
    ASSERT_NE(info.driver, nullptr);
    EXPECT_EQ(std::string(info.driver), v.name.substr(4) + " kernels");
    // An older, shorter struct gets only its fields.
    struct {
      oxi_device_info info;
      uint64_t guard;
    } small;
    std::memset(&small, 0xab, sizeof small);
    small.info.struct_size = offsetof(oxi_device_info, compute_units);
    ASSERT_EQ(v.iface->device_info(v.iface->self, &small.info), OXI_OK);
    EXPECT_EQ(small.info.kind, OXI_DEVICE_CPU);
    EXPECT_EQ(small.info.compute_units, static_cast<int32_t>(0xabababab));
    EXPECT_EQ(v.iface->device_info(v.iface->self, nullptr), OXI_INVALID_ARGUMENT);
  }
}

TEST(CpuBackend, PreferredWeightDtype) {
  for (const Variant& v : Variants()) {
    SCOPED_TRACE(v.name);
    const oxi_backend_iface* b = v.iface;
    const bool simd = v.name != "cpu-scalar";
    for (oxi_dtype p : {OXI_DTYPE_Q8_0, OXI_DTYPE_Q4_0}) {
      const oxi_dtype x8 = p == OXI_DTYPE_Q8_0 ? OXI_DTYPE_Q8_0_X8 : OXI_DTYPE_Q4_0_X8;
      EXPECT_EQ(b->preferred_weight_dtype(b->self, p, 4096, 1024), simd ? x8 : p);
      EXPECT_EQ(b->preferred_weight_dtype(b->self, p, 4100, 1024), p);
    }
    EXPECT_EQ(b->preferred_weight_dtype(b->self, OXI_DTYPE_BF16, 4096, 1024), OXI_DTYPE_BF16);
  }
}

TEST(CpuBuffers, AllocZeroWrapAndBounds) {
  for (const Variant& v : Variants()) {
    SCOPED_TRACE(v.name);
    const oxi_backend_iface* b = v.iface;
    char error[256] = {};
    oxi_buffer* buf = nullptr;
    ASSERT_EQ(b->buffer_alloc(b->self, 1000, OXI_BUFFER_ZERO, &buf, error, sizeof error), OXI_OK);
    auto* p = static_cast<uint8_t*>(b->buffer_host_ptr(b->self, buf));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
    for (int i = 0; i < 1000; ++i) ASSERT_EQ(p[i], 0) << i;
    const uint8_t data[4] = {1, 2, 3, 4};
    ASSERT_EQ(b->buffer_write(b->self, buf, 996, data, 4, error, sizeof error), OXI_OK);
    EXPECT_EQ(p[999], 4);
    EXPECT_EQ(b->buffer_write(b->self, buf, 997, data, 4, error, sizeof error), OXI_OUT_OF_RANGE);
    EXPECT_NE(std::string(error).find("buffer_write"), std::string::npos) << error;
    uint8_t back[4] = {};
    EXPECT_EQ(b->buffer_read(b->self, buf, ~uint64_t{0}, back, 4, error, sizeof error),
              OXI_OUT_OF_RANGE);
    ASSERT_EQ(b->buffer_copy(b->self, buf, 0, buf, 996, 4, error, sizeof error), OXI_OK);
    ASSERT_EQ(b->buffer_read(b->self, buf, 0, back, 4, error, sizeof error), OXI_OK);
    EXPECT_EQ(back[3], 4);
    EXPECT_EQ(b->buffer_copy(b->self, buf, 999, buf, 0, 2, error, sizeof error), OXI_OUT_OF_RANGE);

    // Wrapped memory is used in place: zero copy both ways.
    std::vector<float> host(16, 1.5f);
    oxi_buffer* wrapped = nullptr;
    ASSERT_EQ(
        b->buffer_wrap(b->self, host.data(), 64, OXI_BUFFER_WEIGHTS, &wrapped, error, sizeof error),
        OXI_OK);
    EXPECT_EQ(b->buffer_host_ptr(b->self, wrapped), host.data());
    host[3] = 7.0f;
    float f = 0;
    ASSERT_EQ(b->buffer_read(b->self, wrapped, 12, &f, 4, error, sizeof error), OXI_OK);
    EXPECT_EQ(f, 7.0f);
    b->buffer_free(b->self, wrapped);
    EXPECT_EQ(host[3], 7.0f);  // the caller's memory is left alone

    // Freed and foreign handles are refused with a message.
    b->buffer_free(b->self, buf);
    EXPECT_EQ(b->buffer_host_ptr(b->self, buf), nullptr);
    error[0] = 0;
    EXPECT_EQ(b->buffer_write(b->self, buf, 0, data, 1, error, sizeof error), OXI_INVALID_ARGUMENT);
    EXPECT_NE(std::string(error).find("freed"), std::string::npos) << error;
    b->buffer_free(b->self, buf);  // twice: ignored
    uint64_t foreign[8] = {};
    auto* fake = reinterpret_cast<oxi_buffer*>(foreign);
    EXPECT_EQ(b->buffer_read(b->self, fake, 0, back, 1, error, sizeof error), OXI_INVALID_ARGUMENT);
    EXPECT_NE(std::string(error).find("foreign"), std::string::npos) << error;
    EXPECT_EQ(b->buffer_alloc(b->self, 8, 0, nullptr, error, sizeof error), OXI_INVALID_ARGUMENT);
    EXPECT_EQ(b->buffer_alloc(b->self, ~uint64_t{0}, 0, &buf, error, sizeof error),
              OXI_RESOURCE_EXHAUSTED);
  }
}

// ---- execute(): every malformed call gets an error with a message ----

// On every variant: build(dev) gives a valid op (checked to run), then
// spoil(dev, op) must make execute() fail with `code` and a message holding
// `needle`; supports() must say no unless the fault is in memory only.
template <typename Args, typename Build, typename Spoil>
void ExpectError(Build build, Spoil spoil, int32_t code, const std::string& needle,
                 bool supported) {
  ASSERT_FALSE(Variants().empty());
  for (const Variant& v : Variants()) {
    SCOPED_TRACE(v.name + ": " + needle);
    Dev dev(v);
    Args a = build(dev);
    ASSERT_EQ(dev.Run(a.op), OXI_OK) << dev.error();
    EXPECT_EQ(v.iface->supports(v.iface->self, &a.op), 1);
    spoil(dev, a);
    EXPECT_EQ(dev.Run(a.op), code);
    EXPECT_NE(dev.error().find(needle), std::string::npos) << dev.error();
    EXPECT_EQ(v.iface->supports(v.iface->self, &a.op), supported ? 1 : 0);
  }
}

oxi_rms_norm_args RmsNorm(Dev& dev) {
  auto a = Make<oxi_rms_norm_args>(OXI_OP_RMS_NORM);
  a.x = dev.F32(Random(8, 1), 2, 4);
  a.out = dev.EmptyF32(2, 4);
  a.eps = 1e-6f;
  return a;
}

TEST(ExecuteErrors, BadHeaders) {
  using A = oxi_rms_norm_args;
  ExpectError<A>(
      RmsNorm, [](Dev&, A& a) { a.op.kind = 99; }, OXI_UNIMPLEMENTED, "op kind 99", false);
  ExpectError<A>(
      RmsNorm, [](Dev&, A& a) { a.op.struct_size = sizeof(oxi_op) + 3 * sizeof(oxi_tensor); },
      OXI_INVALID_ARGUMENT, "rms_norm: struct_size", false);
  ExpectError<A>(
      RmsNorm, [](Dev&, A& a) { a.op.n_tensors = 2; }, OXI_INVALID_ARGUMENT,
      "rms_norm: the header counts 2 tensors", false);
  ExpectError<A>(
      RmsNorm, [](Dev&, A& a) { a.op.outputs_read = 1; }, OXI_INVALID_ARGUMENT, "outputs_read",
      false);
  for (const Variant& v : Variants()) {
    Dev dev(v);
    A a = RmsNorm(dev);
    const oxi_op* ops[2] = {&a.op, nullptr};
    char error[256] = {};
    EXPECT_EQ(v.iface->execute(v.iface->self, ops, 2, error, sizeof error), OXI_INVALID_ARGUMENT);
    EXPECT_NE(std::string(error).find("op 1 is NULL"), std::string::npos) << error;
    EXPECT_EQ(v.iface->execute(v.iface->self, ops, -1, error, sizeof error), OXI_INVALID_ARGUMENT);
    EXPECT_EQ(v.iface->execute(v.iface->self, nullptr, 0, error, sizeof error), OXI_OK);
    EXPECT_EQ(v.iface->supports(v.iface->self, nullptr), 0);
  }
}

oxi_matmul_args Matmul(Dev& dev) {
  auto a = Make<oxi_matmul_args>(OXI_OP_MATMUL);
  a.x = dev.F32(Random(2 * 64, 2), 2, 64);
  a.w = dev.F32(Random(3 * 64, 3), 3, 64);
  a.y = dev.EmptyF32(2, 3);
  return a;
}

TEST(ExecuteErrors, BadOperands) {
  using A = oxi_matmul_args;
  const int32_t kInvalid = OXI_INVALID_ARGUMENT;
  ExpectError<A>(
      Matmul,
      [](Dev&, A& a) {
        a.w.cols = 32;
        a.w.row_stride = 64 * 4;
      },
      kInvalid, "matmul: x has 64 columns, w has 32", false);
  ExpectError<A>(
      Matmul, [](Dev&, A& a) { a.y.cols = 4; }, kInvalid, "matmul: y is 2x4, not 2x3", false);
  ExpectError<A>(
      Matmul, [](Dev&, A& a) { a.x.dtype = 77; }, kInvalid, "matmul: x has an invalid dtype",
      false);
  ExpectError<A>(
      Matmul, [](Dev&, A& a) { a.x.dtype = OXI_DTYPE_I32; }, kInvalid, "matmul: x is i32, not f32",
      false);
  ExpectError<A>(
      Matmul,
      [](Dev&, A& a) {
        a.w.dtype = OXI_DTYPE_Q8_0;
        a.w.cols = a.x.cols = 33;
      },
      kInvalid, "not whole q8_0 blocks", false);
  ExpectError<A>(
      Matmul, [](Dev&, A& a) { a.x.rows = -1; }, kInvalid, "matmul: x has -1 rows", false);
  ExpectError<A>(
      Matmul, [](Dev&, A& a) { a.x.row_stride = 100; }, kInvalid, "matmul: x has row_stride 100",
      false);
  ExpectError<A>(
      Matmul, [](Dev&, A& a) { a.x.offset = 2; }, kInvalid, "matmul: x at offset 2", false);
  ExpectError<A>(
      Matmul, [](Dev&, A& a) { a.w.buffer = nullptr; }, kInvalid, "matmul: w is required", false);
  // Faults in memory only: supports() cannot see them.
  ExpectError<A>(
      Matmul,
      [](Dev&, A& a) {
        a.x.rows = 3;
        a.y.rows = 3;
      },
      OXI_OUT_OF_RANGE, "matmul: x (3x64 f32 at offset 0) ends past its buffer", true);
  ExpectError<A>(
      Matmul, [](Dev&, A& a) { a.x.offset = uint64_t{1} << 62; }, OXI_OUT_OF_RANGE,
      "ends past its buffer", true);
  static uint64_t foreign[8] = {};
  ExpectError<A>(
      Matmul, [](Dev&, A& a) { a.w.buffer = reinterpret_cast<oxi_buffer*>(foreign); }, kInvalid,
      "matmul: w: buffer", true);
  ExpectError<A>(
      Matmul,
      [](Dev&, A& a) {
        a.y = a.x;  // the output over an input
        a.y.cols = 3;
        a.y.row_stride = 64 * 4;
      },
      kInvalid, "matmul: y overlaps x", true);
  // Another variant's buffer is foreign too.
  if (Variants().size() > 1) {
    static auto* others = new std::vector<std::unique_ptr<Dev>>();
    ExpectError<A>(
        Matmul,
        [](Dev& dev, A& a) {
          const Variant& other = Variants()[0].name == dev.name() ? Variants()[1] : Variants()[0];
          others->push_back(std::make_unique<Dev>(other));
          a.w = others->back()->F32(Random(3 * 64, 3), 3, 64);
        },
        kInvalid, "foreign", true);
  }
}

TEST(ExecuteErrors, FreedBufferAndBadIds) {
  for (const Variant& v : Variants()) {
    SCOPED_TRACE(v.name);
    Dev dev(v);
    auto a = Make<oxi_get_rows_args>(OXI_OP_GET_ROWS);
    a.table = dev.F32(Random(4 * 8, 4), 4, 8);
    a.ids = dev.I32({0, 3, 4});
    a.out = dev.EmptyF32(3, 8);
    EXPECT_EQ(dev.Run(a.op), OXI_INVALID_ARGUMENT);
    EXPECT_NE(dev.error().find("get_rows: ids[2] = 4 is outside the 4 rows"), std::string::npos)
        << dev.error();
    // A buffer freed behind the tensor's back (nothing allocated since).
    a.ids = dev.I32({0, 3, 1});
    oxi_buffer* buf = nullptr;
    char error[128];
    ASSERT_EQ(v.iface->buffer_alloc(v.iface->self, 256, 0, &buf, error, sizeof error), OXI_OK);
    v.iface->buffer_free(v.iface->self, buf);
    a.table.buffer = buf;
    EXPECT_EQ(dev.Run(a.op), OXI_INVALID_ARGUMENT);
    EXPECT_NE(dev.error().find("get_rows: table: buffer"), std::string::npos) << dev.error();
    EXPECT_NE(dev.error().find("freed"), std::string::npos) << dev.error();
  }
}

TEST(Supports, AnswersPerCall) {
  for (const Variant& v : Variants()) {
    SCOPED_TRACE(v.name);
    Dev dev(v);
    oxi_matmul_args a = Matmul(dev);
    EXPECT_EQ(v.iface->supports(v.iface->self, &a.op), 1);
    for (oxi_dtype t : {OXI_DTYPE_BF16, OXI_DTYPE_F16, OXI_DTYPE_Q8_0, OXI_DTYPE_Q4_0}) {
      a.w.dtype = t;
      a.w.row_stride = 0;
      EXPECT_EQ(v.iface->supports(v.iface->self, &a.op), 1) << oxi_dtype_name(t);
    }
    a.w.dtype = OXI_DTYPE_Q4_0_X8;  // 3 rows: not whole groups
    EXPECT_EQ(v.iface->supports(v.iface->self, &a.op), 0);
    a.w.rows = 8;
    a.y.cols = 8;
    EXPECT_EQ(v.iface->supports(v.iface->self, &a.op), 1);
    a.w.dtype = OXI_DTYPE_I8;
    EXPECT_EQ(v.iface->supports(v.iface->self, &a.op), 0);
  }
}

}  // namespace
}  // namespace cpu_test
}  // namespace oxinfer
