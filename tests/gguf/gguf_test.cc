// The GGUF reader and dequantisers against files gguf-py wrote: every value
// type read back, every tensor type dequantised exactly as gguf-py does.
#include <cmath>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "core/gguf/dequantize.h"
#include "core/gguf/gguf_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace oxinfer::gguf {
namespace {

using ::testing::HasSubstr;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

constexpr char kDir[] = "tests/gguf/testdata/";

TEST(GgufTest, ReadsEveryValueType) {
  const std::string bytes = ReadAll(absl::StrCat(kDir, "types.gguf"));
  absl::StatusOr<GgufHeader> h = ParseGguf(bytes, "types.gguf");
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ(h->version, 3u);
  const auto& m = h->metadata;
  EXPECT_EQ(m.at("general.architecture").s, "llama");
  EXPECT_EQ(m.at("test.u8").i, 200);
  EXPECT_EQ(m.at("test.i8").i, -100);
  EXPECT_EQ(m.at("test.u16").i, 60000);
  EXPECT_EQ(m.at("test.i16").i, -30000);
  EXPECT_EQ(m.at("test.u32").i, 4000000000);
  EXPECT_EQ(m.at("test.i32").i, -2000000000);
  EXPECT_EQ(m.at("test.f32").f, 0.25);
  EXPECT_EQ(m.at("test.bool").i, 1);
  EXPECT_EQ(m.at("test.string").s, "h\xc3\xa9llo");
  EXPECT_EQ(m.at("test.u64").i, int64_t{1} << 40);
  EXPECT_EQ(m.at("test.i64").i, -(int64_t{1} << 40));
  EXPECT_EQ(m.at("test.f64").f, 1e-300);
  const Value& strings = m.at("test.strings");
  ASSERT_EQ(strings.type, ValueType::kArray);
  ASSERT_EQ(strings.array.size(), 3u);
  EXPECT_EQ(strings.array[2].s, "<|im_end|>");
  EXPECT_EQ(m.at("test.ints").array[1].i, 2);
  EXPECT_EQ(h->tensors.size(), 13u);
}

TEST(GgufTest, DequantisesLikeGgufPy) {
  const std::string bytes = ReadAll(absl::StrCat(kDir, "types.gguf"));
  const std::string ref_bytes = ReadAll(absl::StrCat(kDir, "types_reference.gguf"));
  absl::StatusOr<GgufHeader> h = ParseGguf(bytes, "types.gguf");
  absl::StatusOr<GgufHeader> ref = ParseGguf(ref_bytes, "types_reference.gguf");
  ASSERT_TRUE(h.ok() && ref.ok());
  ASSERT_EQ(h->tensors.size(), ref->tensors.size());
  for (size_t i = 0; i < h->tensors.size(); ++i) {
    const TensorInfo& t = h->tensors[i];
    const TensorInfo& r = ref->tensors[i];
    ASSERT_EQ(t.name, r.name);
    ASSERT_EQ(r.type, TensorType::kF32);
    EXPECT_EQ(t.ne, (std::vector<int64_t>{512, 3})) << t.name;
    EXPECT_EQ(t.rows(), 3);
    const int64_t n = t.rows() * t.cols();
    std::vector<float> got(n), want(n);
    ASSERT_TRUE(Dequantize(t.type, bytes.data() + h->data_offset + t.offset, n, got.data()).ok());
    std::memcpy(want.data(), ref_bytes.data() + ref->data_offset + r.offset, n * sizeof(float));
    int differ = 0;
    for (int64_t k = 0; k < n; ++k) differ += !(got[k] == want[k]);
    EXPECT_EQ(differ, 0) << t.name << ": first " << got[0] << " vs " << want[0];
  }
}

TEST(GgufTest, RefusesBrokenFiles) {
  const std::string bytes = ReadAll(absl::StrCat(kDir, "types.gguf"));
  EXPECT_THAT(ParseGguf("GGUX" + bytes.substr(4), "x").status().message(), HasSubstr("magic"));
  for (size_t cut : {size_t{3}, size_t{20}, size_t{200}, bytes.size() - 100}) {
    absl::StatusOr<GgufHeader> h = ParseGguf(bytes.substr(0, cut), "cut.gguf");
    EXPECT_FALSE(h.ok()) << cut;
    EXPECT_THAT(h.status().message(), HasSubstr("truncated")) << cut;
  }
  std::string v9 = bytes;
  v9[4] = 9;
  EXPECT_THAT(ParseGguf(v9, "x").status().message(), HasSubstr("version 9"));
  std::string huge = bytes;  // an absurd metadata count
  huge[16] = huge[17] = huge[18] = huge[19] = '\xff';
  EXPECT_FALSE(ParseGguf(huge, "x").ok());
}

}  // namespace
}  // namespace oxinfer::gguf
