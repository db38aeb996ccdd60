// --save-quantized folders: core/quantized_writer.h writes them (shards of
// at most the limit, a larger tensor alone, the index, the model folder's
// other files, atomically), the host's weights_open reads them back with the
// real dtypes and shapes (core/quantized_format.h), and malformed metadata is
// refused naming the field.
#include <sys/stat.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/host/weights.h"
#include "core/mapped_file.h"
#include "core/quantized_format.h"
#include "core/quantized_writer.h"
#include "core/safetensors.h"
#include "core/safetensors_writer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace oxinfer {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string Fresh(const std::string& name) {
  const char* d = std::getenv("TEST_TMPDIR");
  const std::string dir = absl::StrCat(d != nullptr ? d : "/tmp", "/", name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// A weight of the model as it would report it, bytes patterned by seed.
struct Weight {
  std::string name;
  oxi_dtype dtype;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
  oxi_weight_tensor View() const {
    oxi_weight_tensor t = {};
    t.name = name.c_str();
    t.dtype = dtype;
    t.ndim = static_cast<int32_t>(shape.size());
    for (size_t i = 0; i < shape.size(); ++i) t.shape[i] = shape[i];
    t.data = bytes.data();
    t.size = bytes.size();
    return t;
  }
};

Weight Make(const std::string& name, oxi_dtype dtype, std::vector<int64_t> shape, int seed) {
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < shape.size(); ++i) rows *= shape[i];
  const int64_t n = rows * oxi_dtype_row_bytes(dtype, shape.empty() ? 1 : shape.back());
  Weight w{name, dtype, shape, std::vector<uint8_t>(static_cast<size_t>(n))};
  for (int64_t i = 0; i < n; ++i) w.bytes[i] = static_cast<uint8_t>((seed * 31 + i) % 251);
  return w;
}

// A model folder: config, tokenizer, and weights the save must not copy.
std::string ModelDir() {
  const std::string dir = Fresh("model");
  EXPECT_TRUE(WriteStringToFile(dir + "/config.json", "{\"model_type\": \"x\"}").ok());
  EXPECT_TRUE(WriteStringToFile(dir + "/tokenizer.json", "{}").ok());
  EXPECT_TRUE(WriteStringToFile(dir + "/chat_template.jinja", "{{ x }}").ok());
  EXPECT_TRUE(WriteStringToFile(dir + "/model.safetensors", "not copied").ok());
  return dir;
}

std::vector<Weight> Weights() {
  return {Make("a.norm.weight", OXI_DTYPE_BF16, {64}, 1),
          Make("b.proj.weight", OXI_DTYPE_Q4_0_X8, {16, 64}, 2),  // 576 bytes
          Make("c.conv.weight", OXI_DTYPE_Q8_0, {8, 2, 32}, 3),   // 544 bytes
          Make("d.big.weight", OXI_DTYPE_Q8_0_X8, {64, 64}, 4),   // 4352: a shard alone
          Make("e.bias", OXI_DTYPE_F32, {3}, 5),
          Make("f.scalar", OXI_DTYPE_F32, {}, 6)};  // 0 dims (Gemma 4's clip bounds)
}

int64_t Entries(const std::string& dir) {
  int64_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.path().filename() != "";
  return n;
}

TEST(QuantizedFolder, RoundTripThroughTheHostsReader) {
  const std::string model = ModelDir(), out = Fresh("rt") + "/saved";
  auto w = QuantizedWriter::Create(out, model, OXI_DTYPE_Q4_0, /*max_shard_bytes=*/2048);
  ASSERT_TRUE(w.ok()) << w.status();
  const std::vector<Weight> weights = Weights();
  for (const Weight& x : weights) ASSERT_TRUE((*w)->Add(x.View()).ok()) << x.name;
  EXPECT_FALSE(fs::exists(out)) << "visible before Finish";
  ASSERT_TRUE((*w)->Finish(model, "cpu-test").ok());
  EXPECT_EQ(Entries(fs::path(out).parent_path().string()), 1) << "a temporary folder was left";
  // Shards: [a, b, c] (1184 bytes), [d] (4352, alone), [e].
  EXPECT_EQ((*w)->shards(), 3);
  for (const char* f : {"config.json", "tokenizer.json", "chat_template.jinja",
                        "model.safetensors.index.json", "model-00002-of-00003.safetensors"}) {
    EXPECT_TRUE(fs::exists(out + "/" + f)) << f;
  }
  EXPECT_FALSE(fs::exists(out + "/model.safetensors"));
  EXPECT_EQ(*SavedQuantizedPrecision(out), OXI_DTYPE_Q4_0);
  EXPECT_EQ(*SavedQuantizedPrecision(model), OXI_DTYPE_INVALID);

  // The plain reader sees ordinary safetensors: U8 bytes, 64-byte aligned data.
  auto plain = ModelWeights::Open(out, LoadMode::kRead);
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(plain->Find("b.proj.weight")->dtype, OXI_DTYPE_U8);
  for (const SafetensorsFile& f : plain->files()) EXPECT_EQ(f.header().data_offset % 64, 0u);

  for (uint32_t flags : {0u, static_cast<uint32_t>(OXI_WEIGHTS_MMAP)}) {
    const oxi_weights* got = nullptr;
    char error[1024] = {};
    ASSERT_EQ(HostWeightsOpen(out.c_str(), flags, &got, error, sizeof error), OXI_OK) << error;
    ASSERT_EQ(got->n_tensors, static_cast<int64_t>(weights.size()));
    for (int64_t i = 0; i < got->n_tensors; ++i) {
      const oxi_weight_tensor& t = got->tensors[i];
      const Weight& x = weights[i];  // both sorted by name
      EXPECT_EQ(t.name, x.name);
      EXPECT_EQ(t.dtype, x.dtype) << x.name;
      ASSERT_EQ(t.ndim, static_cast<int32_t>(x.shape.size())) << x.name;
      for (int d = 0; d < t.ndim; ++d) EXPECT_EQ(t.shape[d], x.shape[d]) << x.name;
      ASSERT_EQ(t.size, x.bytes.size()) << x.name;
      EXPECT_EQ(std::memcmp(t.data, x.bytes.data(), t.size), 0) << x.name;
    }
    HostWeightsClose(got);
  }
}

TEST(QuantizedFolder, OutputFolderCheckedBeforeTheWork) {
  const std::string model = ModelDir(), base = Fresh("checks");
  EXPECT_THAT(QuantizedWriter::Create(base + "/x", model, OXI_DTYPE_INVALID).status().message(),
              HasSubstr("needs --quant"));
  EXPECT_THAT(QuantizedWriter::Create(model, model, OXI_DTYPE_Q8_0).status().message(),
              HasSubstr("is the model folder itself"));
  fs::create_directories(base + "/busy");
  ASSERT_TRUE(WriteStringToFile(base + "/busy/notes.txt", "mine").ok());
  EXPECT_THAT(QuantizedWriter::Create(base + "/busy", model, OXI_DTYPE_Q8_0).status().message(),
              HasSubstr("not empty and holds no previous save"));
  EXPECT_THAT(
      QuantizedWriter::Create(base + "/no/such/dir", model, OXI_DTYPE_Q8_0).status().message(),
      HasSubstr("parent folder"));
  fs::create_directories(base + "/empty");
  auto empty = QuantizedWriter::Create(base + "/empty", model, OXI_DTYPE_Q8_0);
  ASSERT_TRUE(empty.ok()) << empty.status();
  // A writer dropped before Finish leaves nothing behind.
  ASSERT_TRUE((*empty)->Add(Weights()[0].View()).ok());
  const int64_t before = Entries(base);
  empty->reset();
  EXPECT_EQ(Entries(base), before - 1);
  EXPECT_TRUE(fs::is_empty(base + "/empty"));
}

TEST(QuantizedFolder, APreviousSaveIsReplacedWhole) {
  const std::string model = ModelDir(), out = Fresh("again") + "/saved/";  // "DIR/" too
  for (int round = 0; round < 2; ++round) {
    auto w = QuantizedWriter::Create(out, model, OXI_DTYPE_Q8_0);
    ASSERT_TRUE(w.ok()) << w.status();
    const Weight x =
        Make(round == 0 ? "first.weight" : "second.weight", OXI_DTYPE_Q8_0, {8, 32}, 9);
    ASSERT_TRUE((*w)->Add(x.View()).ok());
    ASSERT_TRUE((*w)->Finish(model, "cpu-test").ok());
  }
  auto got = ModelWeights::Open(out, LoadMode::kRead);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->Names(), std::vector<std::string>{"second.weight"});
  EXPECT_EQ(Entries(fs::path(out).parent_path().parent_path().string()), 1);
}

TEST(QuantizedFolder, AddRefusesWhatItCannotStore) {
  const std::string model = ModelDir();
  auto w = QuantizedWriter::Create(Fresh("refuse") + "/o", model, OXI_DTYPE_Q8_0);
  ASSERT_TRUE(w.ok());
  Weight x = Make("w", OXI_DTYPE_Q8_0, {8, 32}, 1);
  ASSERT_TRUE((*w)->Add(x.View()).ok());
  EXPECT_THAT((*w)->Add(x.View()).message(), HasSubstr("duplicate"));
  x.name = "short";
  x.bytes.pop_back();
  EXPECT_THAT((*w)->Add(x.View()).message(), HasSubstr("does not match"));
  Weight odd = Make("x8", OXI_DTYPE_Q4_0_X8, {8, 32}, 1);
  odd.shape = {4, 64};  // rows not a multiple of 8
  EXPECT_THAT((*w)->Add(odd.View()).message(), HasSubstr("q4_0x8"));
}

std::map<std::string, std::string> Meta(const std::string& tensors,
                                        const std::string& version = "1",
                                        const std::string& precision = "q4_0") {
  return {{kQuantizedFormatKey, kQuantizedFormatName},
          {kQuantizedVersionKey, version},
          {kQuantizedPrecisionKey, precision},
          {kQuantizedTensorsKey, tensors}};
}

TEST(QuantizedFormat, MalformedMetadataIsRefusedNamingTheField) {
  const std::string ok = R"({"w": {"dtype": "q4_0x8", "shape": [8, 64]}})";
  auto m = ParseQuantizedMetadata(Meta(ok), "f.safetensors");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->tensors.at("w").dtype, OXI_DTYPE_Q4_0_X8);
  EXPECT_EQ(m->tensors.at("w").byte_size(), 8 * 2 * 18);
  const struct {
    std::map<std::string, std::string> meta;
    const char* says;
  } bad[] = {
      {Meta(ok, "2"), "oxinfer.version\" is 2: this oxinfer reads version 1"},
      {Meta(ok, "x"), "\"oxinfer.version\" is \"x\""},
      {Meta(ok, "1", "q5_1"), "\"oxinfer.precision\" is \"q5_1\""},
      {Meta("[1]"), "\"oxinfer.tensors\" is not a JSON object"},
      {Meta("{"), "\"oxinfer.tensors\": "},
      {Meta(R"({"w": {"dtype": "bf16", "shape": [8, 64]}})"), "[\"w\"].dtype is \"bf16\""},
      {Meta(R"({"w": {"dtype": "q8_0", "shape": [8, 33]}})"), "[\"w\"].shape [8,33] does not fit"},
      {Meta(R"({"w": {"dtype": "q8_0x8", "shape": [4, 32]}})"), "does not fit q8_0x8"},
      {Meta(R"({"w": {"dtype": "q8_0", "shape": [-1, 32]}})"), "[\"w\"].shape holds -1"},
      {Meta(R"({"w": {"dtype": "q8_0", "shape": []}})"), "not an array of 1 to 8 dims"},
      {Meta(R"({"w": {"dtype": "q8_0"}})"), "expected {\"dtype\", \"shape\"}"},
      {{{kQuantizedFormatKey, "other"}}, "\"oxinfer.format\" is \"other\""},
  };
  for (const auto& b : bad) {
    auto r = ParseQuantizedMetadata(b.meta, "f.safetensors");
    ASSERT_FALSE(r.ok()) << b.says;
    EXPECT_THAT(r.status().message(), HasSubstr(b.says));
    EXPECT_THAT(r.status().message(), HasSubstr("f.safetensors: __metadata__"));
  }
}

TEST(QuantizedFormat, ReaderRefusesLayoutsThatDoNotMatchTheBytes) {
  const std::string dir = Fresh("mismatch");
  Tensor bytes = *Tensor::Allocate(OXI_DTYPE_U8, {576});
  const std::string layouts[] = {
      R"({"w": {"dtype": "q4_0x8", "shape": [8, 64]}})",      // 288 bytes, not 576
      R"({"gone": {"dtype": "q4_0x8", "shape": [16, 64]}})",  // no such tensor
  };
  for (const std::string& l : layouts) {
    ASSERT_TRUE(WriteSafetensors(dir + "/model.safetensors", {{"w", bytes}}, Meta(l)).ok());
    const oxi_weights* got = nullptr;
    char error[1024] = {};
    EXPECT_NE(HostWeightsOpen(dir.c_str(), 0, &got, error, sizeof error), OXI_OK);
    EXPECT_THAT(error, HasSubstr("model.safetensors: __metadata__ \"oxinfer.tensors\""));
  }
  ASSERT_TRUE(WriteSafetensors(dir + "/model.safetensors", {{"w", bytes}},
                               Meta(R"({"w": {"dtype": "q4_0x8", "shape": [16, 64]}})"))
                  .ok());
  const oxi_weights* got = nullptr;
  char error[1024] = {};
  ASSERT_EQ(HostWeightsOpen(dir.c_str(), 0, &got, error, sizeof error), OXI_OK) << error;
  EXPECT_EQ(got->tensors[0].dtype, OXI_DTYPE_Q4_0_X8);
  HostWeightsClose(got);
}

}  // namespace
}  // namespace oxinfer
