#include "plugins/backends/cpu/cpu_test_util.h"

#include <cstdio>
#include <cstring>
#include <utility>

#include "gtest/gtest.h"
#include "tests/support/test_backends.h"

namespace oxinfer {
namespace cpu_test {
namespace {

std::vector<std::string>* g_paths = nullptr;

struct Loaded {
  std::vector<Variant> variants;
  std::vector<PluginVerdict> verdicts;
};

const Loaded& Load() {
  static const Loaded* loaded = [] {
    auto* l = new Loaded();
    for (const std::string& path : *g_paths) {
      PluginVerdict v;
      v.path = path;
      auto iface = testing::LoadPluginIface(path, OXI_PLUGIN_BACKEND);
      for (const PluginRecord& r : testing::TestRegistry().plugins()) {
        if (r.path != path) continue;
        v.name = r.name;
        v.reason = r.reason;
        v.score = r.score;
      }
      v.loaded = iface.ok();
      if (iface.ok()) {
        l->variants.push_back(Variant{v.name, static_cast<const oxi_backend_iface*>(*iface)});
      } else if (v.score != 0 || v.name.empty()) {
        ADD_FAILURE() << path << ": " << iface.status();  // not a plain decline
      }
      l->verdicts.push_back(v);
    }
    return l;
  }();
  return *loaded;
}

}  // namespace

void SetPluginPaths(std::vector<std::string> paths) {
  g_paths = new std::vector<std::string>(std::move(paths));
}

const std::vector<Variant>& Variants() { return Load().variants; }
const std::vector<PluginVerdict>& Verdicts() { return Load().verdicts; }

std::vector<float> Random(size_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& f : v) f = dist(rng);
  return v;
}

sdk::Tensor Dev::Upload(const void* rows_data, oxi_dtype t, int64_t rows, int64_t cols,
                        int64_t row_stride, uint64_t offset) {
  sdk::Tensor view = Place(t, rows, cols, row_stride, offset);
  const sdk::Status s = cx_.Write(view, rows_data);
  EXPECT_TRUE(s.ok()) << s.message();
  return view;
}

sdk::Tensor Dev::Place(oxi_dtype t, int64_t rows, int64_t cols, int64_t row_stride,
                       uint64_t offset) {
  sdk::Tensor view(nullptr, offset, t, rows, cols, row_stride);
  const uint64_t size = offset + static_cast<uint64_t>(std::max<int64_t>(view.extent(), 0)) + 64;
  auto b = cx_.Alloc(size);
  EXPECT_TRUE(b.ok()) << b.status().message();
  std::vector<uint8_t> nan(size, 0xff);
  EXPECT_TRUE(cx_.WriteBytes(b->get(), 0, nan.data(), static_cast<int64_t>(size)).ok());
  view.buffer = b->get();
  buffers_.push_back(std::move(*b));
  sizes_.push_back(size);
  return view;
}

sdk::Tensor Dev::F32(const std::vector<float>& v, int64_t rows, int64_t cols, int64_t stride) {
  EXPECT_EQ(static_cast<int64_t>(v.size()), rows * cols);
  return Upload(v.data(), OXI_DTYPE_F32, rows, cols, stride * 4);
}

sdk::Tensor Dev::I32(const std::vector<int32_t>& v) {
  return Upload(v.data(), OXI_DTYPE_I32, 1, static_cast<int64_t>(v.size()));
}

sdk::Tensor Dev::Empty(oxi_dtype t, int64_t rows, int64_t cols, int64_t row_stride) {
  return Place(t, rows, cols, row_stride, 0);
}

std::vector<float> Dev::ReadF32(const oxi_tensor& t) {
  std::vector<float> out(static_cast<size_t>(t.rows * t.cols));
  const sdk::Status s = cx_.Read(View(t), out.data());
  EXPECT_TRUE(s.ok()) << s.message();
  return out;
}

std::vector<int32_t> Dev::ReadI32(const oxi_tensor& t) {
  std::vector<int32_t> out(static_cast<size_t>(t.rows * t.cols));
  const sdk::Status s = cx_.Read(View(t), out.data());
  EXPECT_TRUE(s.ok()) << s.message();
  return out;
}

std::vector<uint8_t> Dev::ReadBytes(const oxi_tensor& t) {
  std::vector<uint8_t> out(static_cast<size_t>(t.rows * View(t).row_bytes()));
  const sdk::Status s = cx_.Read(View(t), out.data());
  EXPECT_TRUE(s.ok()) << s.message();
  return out;
}

std::vector<uint8_t> Dev::ReadBuffer(const oxi_tensor& t) {
  for (size_t i = 0; i < buffers_.size(); ++i) {
    if (buffers_[i].get() != t.buffer) continue;
    std::vector<uint8_t> out(sizes_[i]);
    EXPECT_TRUE(cx_.ReadBytes(t.buffer, 0, out.data(), static_cast<int64_t>(out.size())).ok());
    return out;
  }
  ADD_FAILURE() << "not a buffer of this harness";
  return {};
}

int32_t Dev::Run(const oxi_op& op) {
  const oxi_op* ops[1] = {&op};
  char error[1024];
  std::memset(error, 0, sizeof error);
  const int32_t rc = variant_.iface->execute(variant_.iface->self, ops, 1, error, sizeof error);
  error_ = error;
  if (rc != OXI_OK) {
    EXPECT_FALSE(error_.empty()) << "an error without a message";
  }
  return rc;
}

bool Dev::Takes(const oxi_op& op) const {
  const oxi_backend_iface* t = variant_.iface;
  if ((t->flags & OXI_BACKEND_COMPLETE) != 0 || t->supports == nullptr) return true;
  return t->supports(t->self, &op) != 0;
}

void Dev::ExpectRejected(const oxi_op& op, const std::string& text) {
  const int32_t rc = Run(op);
  if ((variant_.iface->flags & OXI_BACKEND_COMPLETE) != 0) {
    EXPECT_EQ(rc, OXI_INVALID_ARGUMENT) << error_;
    EXPECT_NE(error_.find(text), std::string::npos) << error_;
  } else {
    EXPECT_NE(rc, OXI_OK) << "a partial backend ran an invalid " << oxi_op_name(op.kind);
  }
}

}  // namespace cpu_test
}  // namespace oxinfer
