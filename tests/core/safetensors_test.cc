#include "core/safetensors.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/safetensors_writer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace oxinfer {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string TmpDir() {
  const char* d = std::getenv("TEST_TMPDIR");
  return d != nullptr ? d : "/tmp";
}

// A fresh directory under TEST_TMPDIR.
std::string MakeDir(const std::string& name) {
  std::string dir = absl::StrCat(TmpDir(), "/", name);
  mkdir(dir.c_str(), 0755);
  return dir;
}

Tensor F32(std::vector<int64_t> shape, float start) {
  Tensor t = *Tensor::Allocate(OXI_DTYPE_F32, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.mutable_data_as<float>()[i] = start + i;
  return t;
}

Tensor Filled(oxi_dtype dtype, std::vector<int64_t> shape, uint8_t byte) {
  Tensor t = *Tensor::Allocate(dtype, shape);
  std::memset(t.mutable_data(), byte, t.byte_size());
  return t;
}

// A file from a raw header text and a data section.
std::string RawFile(const std::string& header, const std::string& data) {
  std::string out;
  const uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  return out + header + data;
}

std::string WriteRaw(const std::string& name, const std::string& bytes) {
  std::string path = absl::StrCat(TmpDir(), "/", name);
  EXPECT_TRUE(WriteStringToFile(path, bytes).ok());
  return path;
}

std::vector<NamedTensor> SampleTensors() {
  return {
      {"model.embed.weight", F32({2, 3}, 1.0f)},   {"b.bf16", Filled(OXI_DTYPE_BF16, {4}, 0x3f)},
      {"c.scalar", Filled(OXI_DTYPE_I64, {}, 7)},  {"d.empty", Filled(OXI_DTYPE_U8, {0, 5}, 0)},
      {"e.mask", Filled(OXI_DTYPE_BOOL, {3}, 1)},  {"f.f16", Filled(OXI_DTYPE_F16, {1, 2}, 0x11)},
      {"g.f64", Filled(OXI_DTYPE_F64, {1}, 0x22)}, {"h.i32", Filled(OXI_DTYPE_I32, {2}, 0x33)},
      {"i.i16", Filled(OXI_DTYPE_I16, {2}, 0x44)}, {"j.i8", Filled(OXI_DTYPE_I8, {2}, 0x55)},
  };
}

class RoundTripTest : public ::testing::TestWithParam<LoadMode> {};

TEST_P(RoundTripTest, WriteThenRead) {
  const std::vector<NamedTensor> tensors = SampleTensors();
  const std::string path =
      absl::StrCat(TmpDir(), "/roundtrip_", static_cast<int>(GetParam()), ".safetensors");
  ASSERT_TRUE(WriteSafetensors(path, tensors, {{"format", "pt"}}).ok());

  Tensor kept;
  {
    absl::StatusOr<SafetensorsFile> f = SafetensorsFile::Open(path, GetParam());
    ASSERT_TRUE(f.ok()) << f.status();
    EXPECT_EQ(f->size(), tensors.size());
    EXPECT_EQ(f->metadata().at("format"), "pt");
    EXPECT_EQ(f->header().data_offset % 8, 0u);
    std::vector<std::string> names = f->Names();
    EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
    for (const auto& [name, t] : tensors) {
      const TensorInfo* info = f->Find(name);
      ASSERT_NE(info, nullptr) << name;
      EXPECT_EQ(info->dtype, t.dtype()) << name;
      EXPECT_EQ(info->shape, std::vector<int64_t>(t.shape().begin(), t.shape().end())) << name;
      absl::StatusOr<Tensor> v = f->GetTensor(name);
      ASSERT_TRUE(v.ok()) << v.status();
      EXPECT_FALSE(v->owns_data());
      EXPECT_EQ(v->dtype(), t.dtype());
      EXPECT_EQ(v->ShapeString(), t.ShapeString());
      ASSERT_EQ(v->byte_size(), t.byte_size());
      EXPECT_EQ(std::memcmp(v->data(), t.data(), t.byte_size()), 0) << name;
    }
    EXPECT_EQ(f->Find("nope"), nullptr);
    absl::Status missing = f->GetTensor("nope").status();
    EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound);
    EXPECT_THAT(missing.message(), HasSubstr(path));
    kept = *f->GetTensor("model.embed.weight");
  }
  // The view outlives the SafetensorsFile: it holds the mapping.
  EXPECT_EQ(kept.data_as<float>()[5], 6.0f);
}

TEST_P(RoundTripTest, ModelWeightsSingleFileByDirAndPath) {
  const std::string dir = MakeDir(absl::StrCat("single_", static_cast<int>(GetParam())));
  ASSERT_TRUE(WriteSafetensors(dir + "/model.safetensors", SampleTensors()).ok());
  for (const std::string& p : {dir, dir + "/model.safetensors"}) {
    absl::StatusOr<ModelWeights> w = ModelWeights::Open(p, GetParam());
    ASSERT_TRUE(w.ok()) << w.status();
    EXPECT_EQ(w->size(), SampleTensors().size());
    EXPECT_EQ(w->files().size(), 1u);
    absl::StatusOr<Tensor> t = w->GetTensor("model.embed.weight");
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(t->data_as<float>()[0], 1.0f);
  }
}

TEST_P(RoundTripTest, Sharded) {
  const std::string dir = MakeDir(absl::StrCat("sharded_", static_cast<int>(GetParam())));
  ASSERT_TRUE(WriteSafetensors(dir + "/model-00001-of-00002.safetensors",
                               {{"a.weight", F32({2, 2}, 0)}, {"b.weight", F32({3}, 10)}})
                  .ok());
  ASSERT_TRUE(WriteSafetensors(dir + "/model-00002-of-00002.safetensors",
                               {{"c.weight", F32({4}, 20)}, {"unlisted", F32({1}, 0)}})
                  .ok());
  ASSERT_TRUE(WriteSafetensorsIndex(dir + "/model.safetensors.index.json",
                                    {{"a.weight", "model-00001-of-00002.safetensors"},
                                     {"b.weight", "model-00001-of-00002.safetensors"},
                                     {"c.weight", "model-00002-of-00002.safetensors"}},
                                    44)
                  .ok());
  absl::StatusOr<ModelWeights> w = ModelWeights::Open(dir, GetParam());
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_THAT(w->Names(), ElementsAre("a.weight", "b.weight", "c.weight"));
  EXPECT_EQ(w->files().size(), 2u);
  EXPECT_EQ(w->Find("unlisted"), nullptr);
  EXPECT_NE(w->FileOf("a.weight"), w->FileOf("c.weight"));
  EXPECT_EQ(w->GetTensor("c.weight")->data_as<float>()[3], 23.0f);
  EXPECT_EQ(w->GetTensor("b.weight")->data_as<float>()[1], 11.0f);
  // Moving the object keeps everything valid.
  ModelWeights moved = *std::move(w);
  EXPECT_EQ(moved.Find("a.weight")->shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(moved.GetTensor("a.weight")->data_as<float>()[3], 3.0f);
}

INSTANTIATE_TEST_SUITE_P(Modes, RoundTripTest, ::testing::Values(LoadMode::kMmap, LoadMode::kRead));

// Resident pages of this process (file-backed ones included), in bytes.
int64_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * sysconf(_SC_PAGESIZE);
}

// A loader that copied a tensor can hand its mapped pages back: the resident
// set shrinks, and the view still reads the same values (from the file again).
TEST(SafetensorsTest, ReleaseDropsMappedPagesAndKeepsTheValues) {
  const std::string dir = MakeDir("release");
  const int64_t n = 8 << 20;  // 32 MiB of f32
  ASSERT_TRUE(WriteSafetensors(dir + "/model.safetensors",
                               {{"big", F32({n}, 0.0f)}, {"small", F32({3}, 5.0f)}})
                  .ok());
  for (LoadMode mode : {LoadMode::kMmap, LoadMode::kRead}) {
    absl::StatusOr<ModelWeights> w = ModelWeights::Open(dir, mode);
    ASSERT_TRUE(w.ok()) << w.status();
    absl::StatusOr<Tensor> big = w->GetTensor("big");
    ASSERT_TRUE(big.ok());
    double sum = 0;
    for (int64_t i = 0; i < n; i += 1024) sum += big->data_as<float>()[i];  // touch every page
    const int64_t before = ResidentBytes();
    w->Release("big");
    w->Release("absent");  // nothing
    const int64_t after = ResidentBytes();
    if (mode == LoadMode::kMmap) {
      EXPECT_GT(before - after, n * 4 / 2) << "before " << before << " after " << after;
    } else {
      EXPECT_LT(before - after, n * 4 / 8);  // RAM copies are kept
    }
    double again = 0;
    for (int64_t i = 0; i < n; i += 1024) again += big->data_as<float>()[i];
    EXPECT_EQ(again, sum);
    EXPECT_EQ(big->data_as<float>()[n - 1], static_cast<float>(n - 1));
    EXPECT_EQ(w->GetTensor("small")->data_as<float>()[2], 7.0f);
  }
}

TEST(SafetensorsTest, DiffusersFileNameAndExpectedShapes) {
  const std::string dir = MakeDir("diffusers_unet");
  ASSERT_TRUE(WriteSafetensors(dir + "/diffusion_pytorch_model.safetensors",
                               {{"conv.weight", F32({4, 2}, 0)}})
                  .ok());
  absl::StatusOr<ModelWeights> w = ModelWeights::Open(dir);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_TRUE(w->GetTensor("conv.weight", OXI_DTYPE_F32, {4, 2}).ok());
  EXPECT_TRUE(w->GetTensor("conv.weight", OXI_DTYPE_INVALID, {4, 2}).ok());
  absl::Status s = w->GetTensor("conv.weight", OXI_DTYPE_F32, {2, 4}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("'conv.weight'"));
  EXPECT_THAT(s.message(), HasSubstr("diffusion_pytorch_model.safetensors"));
  EXPECT_THAT(s.message(), HasSubstr("is f32[4, 2], expected f32[2, 4]"));
  s = w->GetTensor("conv.weight", OXI_DTYPE_BF16, {4, 2}).status();
  EXPECT_THAT(s.message(), HasSubstr("expected bf16[4, 2]"));
  EXPECT_EQ(w->GetTensor("nope", OXI_DTYPE_F32, {1}).status().code(), absl::StatusCode::kNotFound);
}

TEST(SafetensorsTest, ParseInMemory) {
  absl::StatusOr<std::string> bytes = SerializeSafetensors({{"x", F32({2}, 0)}});
  ASSERT_TRUE(bytes.ok());
  absl::StatusOr<SafetensorsHeader> h = ParseSafetensorsHeader(*bytes);
  ASSERT_TRUE(h.ok()) << h.status();
  ASSERT_EQ(h->tensors.size(), 1u);
  EXPECT_EQ(h->tensors[0].name, "x");
  EXPECT_EQ(h->tensors[0].byte_size(), 8u);
  EXPECT_EQ(h->data_size, 8u);
}

TEST(SafetensorsTest, WriterRefusesQuantisedAndDuplicates) {
  EXPECT_FALSE(SerializeSafetensors({{"q", *Tensor::Allocate(OXI_DTYPE_Q8_0, {32})}}).ok());
  EXPECT_FALSE(SerializeSafetensors({{"a", F32({1}, 0)}, {"a", F32({1}, 0)}}).ok());
}

// ---- malformed files ----

struct BadCase {
  const char* name;
  std::string bytes;
  absl::StatusCode code;
  std::vector<std::string> substrings;  // besides the file path
};

std::vector<BadCase> BadCases() {
  const std::string d24(24, '\0');
  std::vector<BadCase> cases;
  cases.push_back({"short",
                   std::string("\x05\x00\x00", 3),
                   absl::StatusCode::kDataLoss,
                   {"truncated", "8-byte header length"}});
  {
    std::string f = RawFile("{}", "");
    f[0] = 100;  // header says 100 bytes, file has 2
    cases.push_back({"header_past_end",
                     f,
                     absl::StatusCode::kDataLoss,
                     {"truncated", "header needs 108 bytes", "missing"}});
  }
  {
    std::string f = RawFile("{}", "");
    f[7] = 1;  // 2^56 bytes
    cases.push_back({"header_huge", f, absl::StatusCode::kInvalidArgument, {"exceeds"}});
  }
  cases.push_back({"not_json",
                   RawFile("{\"a\": nope}", ""),
                   absl::StatusCode::kInvalidArgument,
                   {"not valid JSON"}});
  cases.push_back(
      {"top_array", RawFile("[1, 2]", ""), absl::StatusCode::kInvalidArgument, {"not an object"}});
  cases.push_back({"duplicate_key",
                   RawFile(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                           R"("w":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                           std::string(8, '\0')),
                   absl::StatusCode::kInvalidArgument,
                   {"duplicate key 'w'"}});
  cases.push_back({"truncated_data",
                   RawFile(R"({"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},)"
                           R"("b":{"dtype":"F32","shape":[2,3],"data_offsets":[24,48]}})",
                           std::string(30, '\0')),
                   absl::StatusCode::kDataLoss,
                   {"tensor 'b'", "truncated", "18 bytes missing"}});
  cases.push_back({"overlap",
                   RawFile(R"({"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},)"
                           R"("b":{"dtype":"F32","shape":[2],"data_offsets":[16,24]}})",
                           d24),
                   absl::StatusCode::kInvalidArgument,
                   {"tensor 'b'", "overlap tensor 'a'"}});
  cases.push_back({"fp8",
                   RawFile(R"({"a":{"dtype":"F8_E4M3","shape":[2],"data_offsets":[0,2]}})", "ab"),
                   absl::StatusCode::kUnimplemented,
                   {"tensor 'a'", "F8_E4M3"}});
  cases.push_back({"unknown_dtype",
                   RawFile(R"({"a":{"dtype":"Q9","shape":[2],"data_offsets":[0,2]}})", "ab"),
                   absl::StatusCode::kInvalidArgument,
                   {"tensor 'a'", "unknown dtype 'Q9'"}});
  cases.push_back({"size_mismatch",
                   RawFile(R"({"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,20]}})", d24),
                   absl::StatusCode::kInvalidArgument,
                   {"tensor 'a'", "span 20 bytes", "needs 24 bytes"}});
  cases.push_back({"begin_after_end",
                   RawFile(R"({"a":{"dtype":"U8","shape":[0],"data_offsets":[8,4]}})", d24),
                   absl::StatusCode::kInvalidArgument,
                   {"tensor 'a'", "begin > end"}});
  cases.push_back({"negative_dim",
                   RawFile(R"({"a":{"dtype":"U8","shape":[-1],"data_offsets":[0,0]}})", ""),
                   absl::StatusCode::kInvalidArgument,
                   {"tensor 'a'", "non-negative integers"}});
  cases.push_back({"float_dim",
                   RawFile(R"({"a":{"dtype":"U8","shape":[2.0],"data_offsets":[0,2]}})", "ab"),
                   absl::StatusCode::kInvalidArgument,
                   {"tensor 'a'", "shape"}});
  cases.push_back(
      {"shape_overflow",
       RawFile(R"({"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,0]}})", ""),
       absl::StatusCode::kInvalidArgument,
       {"tensor 'a'", "overflows"}});
  cases.push_back(
      {"too_many_dims",
       RawFile(R"({"a":{"dtype":"U8","shape":[1,1,1,1,1,1,1,1,1],"data_offsets":[0,1]}})", "a"),
       absl::StatusCode::kInvalidArgument,
       {"tensor 'a'", "9 dimensions"}});
  cases.push_back({"missing_offsets",
                   RawFile(R"({"a":{"dtype":"U8","shape":[1]}})", "a"),
                   absl::StatusCode::kInvalidArgument,
                   {"tensor 'a'", "missing field data_offsets"}});
  cases.push_back({"three_offsets",
                   RawFile(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1,2]}})", "a"),
                   absl::StatusCode::kInvalidArgument,
                   {"tensor 'a'", "two non-negative integers"}});
  cases.push_back({"unknown_field",
                   RawFile(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"x":1}})", "a"),
                   absl::StatusCode::kInvalidArgument,
                   {"tensor 'a'", "unknown field 'x'"}});
  cases.push_back({"metadata_not_string",
                   RawFile(R"({"__metadata__":{"format":1}})", ""),
                   absl::StatusCode::kInvalidArgument,
                   {"__metadata__", "'format'", "not a string"}});
  cases.push_back({"entry_not_object",
                   RawFile(R"({"a":[1]})", ""),
                   absl::StatusCode::kInvalidArgument,
                   {"tensor 'a'", "not an object"}});
  cases.push_back({"empty_tensor_past_end",
                   RawFile(R"({"a":{"dtype":"U8","shape":[0],"data_offsets":[9,9]}})", "ab"),
                   absl::StatusCode::kDataLoss,
                   {"tensor 'a'", "truncated"}});
  return cases;
}

TEST(SafetensorsTest, MalformedFilesAreRefusedWithClearErrors) {
  for (const BadCase& c : BadCases()) {
    SCOPED_TRACE(c.name);
    const std::string path = WriteRaw(absl::StrCat("bad_", c.name, ".safetensors"), c.bytes);
    for (LoadMode mode : {LoadMode::kMmap, LoadMode::kRead}) {
      absl::StatusOr<SafetensorsFile> f = SafetensorsFile::Open(path, mode);
      ASSERT_FALSE(f.ok());
      EXPECT_EQ(f.status().code(), c.code) << f.status();
      EXPECT_THAT(f.status().message(), HasSubstr(path));
      for (const std::string& s : c.substrings) {
        EXPECT_THAT(f.status().message(), HasSubstr(s));
      }
    }
    // The in-memory parser agrees.
    absl::StatusOr<SafetensorsHeader> h = ParseSafetensorsHeader(c.bytes, "mem");
    EXPECT_EQ(h.status().code(), c.code) << h.status();
  }
}

TEST(SafetensorsTest, TruncatedRealFile) {
  absl::StatusOr<std::string> bytes =
      SerializeSafetensors({{"a", F32({4, 4}, 0)}, {"z.last", F32({8}, 0)}});
  ASSERT_TRUE(bytes.ok());
  const std::string path = WriteRaw("cut.safetensors", bytes->substr(0, bytes->size() - 5));
  absl::Status s = SafetensorsFile::Open(path).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(s.message(), HasSubstr("tensor 'z.last'"));
  EXPECT_THAT(s.message(), HasSubstr("5 bytes missing"));
}

TEST(SafetensorsTest, MissingFile) {
  absl::Status s = SafetensorsFile::Open(TmpDir() + "/does_not_exist.safetensors").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("does_not_exist.safetensors"));
  const std::string empty_dir = MakeDir("empty_model");
  s = ModelWeights::Open(empty_dir).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("model.safetensors.index.json"));
}

// ---- sharded index errors ----

std::string ShardedDir(const std::string& name, const std::string& index_text) {
  const std::string dir = MakeDir(name);
  EXPECT_TRUE(WriteSafetensors(dir + "/s1.safetensors", {{"a", F32({2}, 0)}}).ok());
  EXPECT_TRUE(WriteStringToFile(dir + "/model.safetensors.index.json", index_text).ok());
  return dir;
}

TEST(SafetensorsIndexTest, MissingShard) {
  const std::string dir = ShardedDir(
      "idx_missing", R"({"weight_map": {"a": "s1.safetensors", "b": "s2.safetensors"}})");
  absl::Status s = ModelWeights::Open(dir).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("model.safetensors.index.json"));
  EXPECT_THAT(s.message(), HasSubstr("shard 's2.safetensors'"));
  EXPECT_THAT(s.message(), HasSubstr("tensor 'b'"));
}

TEST(SafetensorsIndexTest, TensorNotInItsShard) {
  const std::string dir = ShardedDir(
      "idx_notin", R"({"weight_map": {"a": "s1.safetensors", "ghost": "s1.safetensors"}})");
  absl::Status s = ModelWeights::Open(dir).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("tensor 'ghost'"));
  EXPECT_THAT(s.message(), HasSubstr("s1.safetensors"));
}

TEST(SafetensorsIndexTest, MalformedIndex) {
  struct Case {
    const char* text;
    const char* substring;
  };
  const Case cases[] = {
      {"{not json", "not valid JSON"},
      {"[]", "not a JSON object"},
      {R"({"metadata": {}})", "no weight_map"},
      {R"({"weight_map": []})", "weight_map is a JSON array"},
      {R"({"weight_map": {}})", "weight_map is empty"},
      {R"({"weight_map": {"a": 3}})", "tensor 'a' is not a string"},
      {R"({"weight_map": {"a": "../s1.safetensors"}})", "not a file name"},
      {R"({"weight_map": {"a": "s1.safetensors", "a": "s1.safetensors"}})", "duplicate key 'a'"},
  };
  int i = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    const std::string dir = ShardedDir(absl::StrCat("idx_bad_", i++), c.text);
    absl::Status s = ModelWeights::Open(dir).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_THAT(s.message(), HasSubstr(dir + "/model.safetensors.index.json"));
    EXPECT_THAT(s.message(), HasSubstr(c.substring));
  }
}

TEST(SafetensorsIndexTest, BadShardIsReportedWithItsPath) {
  const std::string dir = MakeDir("idx_badshard");
  ASSERT_TRUE(WriteStringToFile(dir + "/s1.safetensors", RawFile("{oops", "")).ok());
  ASSERT_TRUE(WriteStringToFile(dir + "/model.safetensors.index.json",
                                R"({"weight_map": {"a": "s1.safetensors"}})")
                  .ok());
  absl::Status s = ModelWeights::Open(dir).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr(dir + "/s1.safetensors"));
}

// Writes replace the file whole (temporary file, fsync, rename): a reader that
// holds the old checkpoint open, or mapped, keeps all of its bytes, and
// nothing but the file is left in the folder. fopen("wb") truncated it under
// the reader.
TEST(SafetensorsWriterTest, ReplacesTheFileWithoutTruncatingItUnderAReader) {
  const std::string dir = MakeDir("atomic_replace");
  const std::string path = dir + "/model.safetensors";
  ASSERT_TRUE(WriteSafetensors(path, SampleTensors()).ok());
  std::ifstream old_reader(path, std::ios::binary);
  ASSERT_TRUE(old_reader.good());
  absl::StatusOr<SafetensorsFile> mapped = SafetensorsFile::Open(path, LoadMode::kMmap);
  ASSERT_TRUE(mapped.ok()) << mapped.status();

  ASSERT_TRUE(WriteSafetensors(path, {{"x", F32({1}, 9.0f)}}).ok());

  const std::string old_bytes(std::istreambuf_iterator<char>(old_reader), {});
  ASSERT_EQ(old_bytes, *SerializeSafetensors(SampleTensors()));
  absl::StatusOr<Tensor> kept = mapped->GetTensor("model.embed.weight");
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_EQ(kept->data_as<float>()[5], 6.0f);
  absl::StatusOr<SafetensorsFile> now = SafetensorsFile::Open(path);
  ASSERT_TRUE(now.ok()) << now.status();
  EXPECT_EQ(now->size(), 1u);
  std::vector<std::string> entries;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") {
        entries.push_back(e->d_name);
      }
    }
    ::closedir(d);
  }
  EXPECT_THAT(entries, ::testing::ElementsAre("model.safetensors"));
}

TEST(SafetensorsWriterTest, AFailedWriteNamesThePathAndKeepsNothing) {
  const std::string dir = MakeDir("atomic_missing");
  const std::string path = dir + "/no_such_folder/model.safetensors";
  absl::Status s = WriteSafetensors(path, SampleTensors());
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("no_such_folder"));
}

TEST(SafetensorsDtypeTest, Names) {
  EXPECT_EQ(*SafetensorsDtypeFromName("BF16"), OXI_DTYPE_BF16);
  EXPECT_EQ(*SafetensorsDtypeFromName("BOOL"), OXI_DTYPE_BOOL);
  EXPECT_EQ(SafetensorsDtypeFromName("F8_E5M2").status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(SafetensorsDtypeFromName("bf16").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_STREQ(SafetensorsDtypeName(OXI_DTYPE_F16), "F16");
  EXPECT_EQ(SafetensorsDtypeName(OXI_DTYPE_Q4_0), nullptr);
}

}  // namespace
}  // namespace oxinfer
