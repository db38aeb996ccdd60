// The weights_open / weights_release / weights_close host services over
// checkpoints written by core/safetensors_writer.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/host_services.h"
#include "core/safetensors_writer.h"
#include "core/tensor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "oxinfer/sdk/weights.hpp"

namespace oxinfer {
namespace {

using ::testing::HasSubstr;

std::string TmpPath(const std::string& name) {
  const char* d = std::getenv("TEST_TMPDIR");
  return absl::StrCat(d != nullptr ? d : "/tmp", "/", name);
}

std::string MakeDir(const std::string& name) {
  const std::string dir = TmpPath(name);
  mkdir(dir.c_str(), 0755);
  return dir;
}

// A tensor whose bytes are (seed + i) mod 251.
Tensor Patterned(oxi_dtype dtype, std::vector<int64_t> shape, int seed) {
  Tensor t = *Tensor::Allocate(dtype, shape);
  auto* p = static_cast<uint8_t*>(t.mutable_data());
  for (int64_t i = 0; i < t.byte_size(); ++i) p[i] = static_cast<uint8_t>((seed + i) % 251);
  return t;
}

// Written in an order that is not the sorted one; "a" < "a.b" < "a_b" < "b"
// in strcmp order, and the capital "Z" sorts first.
std::vector<NamedTensor> Fixture() {
  return {
      {"b", Patterned(OXI_DTYPE_F32, {2, 3}, 1)},
      {"a.b", Patterned(OXI_DTYPE_BF16, {4}, 2)},
      {"Z", Patterned(OXI_DTYPE_I64, {}, 3)},
      {"a_b", Patterned(OXI_DTYPE_U8, {1, 2, 3, 4, 1, 1, 1, 2}, 4)},
      {"a", Patterned(OXI_DTYPE_F16, {0, 5}, 5)},
  };
}

struct Opened {
  int32_t code = -1;
  std::string error;
  const oxi_weights* w = nullptr;
};

Opened Open(const std::string& path, uint32_t flags) {
  Opened o;
  char error[1024] = {};
  o.code = HostServices()->weights_open(path.c_str(), flags, &o.w, error, sizeof error);
  o.error = error;
  if (o.code != OXI_OK) {
    EXPECT_EQ(o.w, nullptr);
  }
  return o;
}

void ExpectFixture(const oxi_weights& w) {
  const std::vector<NamedTensor> want = Fixture();
  ASSERT_EQ(w.n_tensors, static_cast<int64_t>(want.size()));
  const char* order[] = {"Z", "a", "a.b", "a_b", "b"};
  for (int64_t i = 0; i < w.n_tensors; ++i) {
    const oxi_weight_tensor& t = w.tensors[i];
    ASSERT_STREQ(t.name, order[i]);
    if (i > 0) {
      EXPECT_LT(std::strcmp(w.tensors[i - 1].name, t.name), 0);
    }
    const Tensor* expected = nullptr;
    for (const NamedTensor& n : want) {
      if (n.first == t.name) expected = &n.second;
    }
    ASSERT_NE(expected, nullptr);
    EXPECT_EQ(t.dtype, expected->dtype()) << t.name;
    ASSERT_EQ(t.ndim, expected->rank()) << t.name;
    for (int d = 0; d < t.ndim; ++d) EXPECT_EQ(t.shape[d], expected->dim(d)) << t.name;
    ASSERT_EQ(t.size, static_cast<uint64_t>(expected->byte_size())) << t.name;
    EXPECT_EQ(std::memcmp(t.data, expected->data(), t.size), 0) << t.name;
  }
}

TEST(HostWeightsTest, OneFileSortedWithShapesAndBytesMappedOrRead) {
  const std::string path = TmpPath("one.safetensors");
  ASSERT_TRUE(WriteSafetensors(path, Fixture()).ok());
  for (uint32_t flags : {OXI_WEIGHTS_MMAP, 0u}) {
    SCOPED_TRACE(flags);
    Opened o = Open(path, flags);
    ASSERT_EQ(o.code, OXI_OK) << o.error;
    EXPECT_EQ(o.w->struct_size, sizeof(oxi_weights));
    EXPECT_STREQ(o.w->source, path.c_str());
    ExpectFixture(*o.w);
    HostServices()->weights_close(o.w);
  }
}

TEST(HostWeightsTest, FolderAndShardedIndex) {
  const std::string dir = MakeDir("folder");
  ASSERT_TRUE(WriteSafetensors(dir + "/model.safetensors", Fixture()).ok());
  Opened folder = Open(dir, OXI_WEIGHTS_MMAP);
  ASSERT_EQ(folder.code, OXI_OK) << folder.error;
  EXPECT_EQ(std::string(folder.w->source), dir + "/model.safetensors");
  ExpectFixture(*folder.w);
  HostServices()->weights_close(folder.w);

  const std::string sharded = MakeDir("sharded");
  std::vector<NamedTensor> all = Fixture();
  std::vector<NamedTensor> first(all.begin(), all.begin() + 2), second(all.begin() + 2, all.end());
  ASSERT_TRUE(WriteSafetensors(sharded + "/model-00001-of-00002.safetensors", first).ok());
  ASSERT_TRUE(WriteSafetensors(sharded + "/model-00002-of-00002.safetensors", second).ok());
  std::map<std::string, std::string> weight_map;
  for (const auto& t : first) weight_map[t.first] = "model-00001-of-00002.safetensors";
  for (const auto& t : second) weight_map[t.first] = "model-00002-of-00002.safetensors";
  ASSERT_TRUE(WriteSafetensorsIndex(sharded + "/model.safetensors.index.json", weight_map).ok());
  Opened index = Open(sharded, 0);
  ASSERT_EQ(index.code, OXI_OK) << index.error;
  EXPECT_EQ(std::string(index.w->source), sharded + "/model.safetensors.index.json");
  ExpectFixture(*index.w);
  HostServices()->weights_close(index.w);
}

TEST(HostWeightsTest, ReleasedTensorsStayReadable) {
  const std::string path = TmpPath("release.safetensors");
  std::vector<NamedTensor> big = {{"big", Patterned(OXI_DTYPE_F32, {256, 1024}, 7)},
                                  {"small", Patterned(OXI_DTYPE_F32, {3}, 8)}};
  ASSERT_TRUE(WriteSafetensors(path, big).ok());
  for (uint32_t flags : {OXI_WEIGHTS_MMAP, 0u}) {
    Opened o = Open(path, flags);
    ASSERT_EQ(o.code, OXI_OK) << o.error;
    for (int64_t i = 0; i < o.w->n_tensors; ++i) HostServices()->weights_release(o.w, i);
    HostServices()->weights_release(o.w, -1);  // ignored
    HostServices()->weights_release(o.w, o.w->n_tensors);
    HostServices()->weights_release(nullptr, 0);
    const oxi_weight_tensor& t = o.w->tensors[0];
    ASSERT_STREQ(t.name, "big");
    EXPECT_EQ(std::memcmp(t.data, big[0].second.data(), t.size), 0);
    HostServices()->weights_close(o.w);
  }
  HostServices()->weights_close(nullptr);
}

TEST(HostWeightsTest, ErrorsNameTheFile) {
  const std::string missing = TmpPath("missing.safetensors");
  Opened m = Open(missing, OXI_WEIGHTS_MMAP);
  EXPECT_EQ(m.code, OXI_NOT_FOUND);
  EXPECT_THAT(m.error, HasSubstr(missing));

  const std::string empty_dir = MakeDir("no_weights");
  Opened e = Open(empty_dir, OXI_WEIGHTS_MMAP);
  EXPECT_EQ(e.code, OXI_NOT_FOUND);
  EXPECT_THAT(e.error, HasSubstr(empty_dir));
  EXPECT_THAT(e.error, HasSubstr("model.safetensors"));

  const std::string truncated = TmpPath("truncated.safetensors");
  std::string bytes = *SerializeSafetensors(Fixture());
  ASSERT_TRUE(WriteStringToFile(truncated, bytes.substr(0, bytes.size() - 3)).ok());
  Opened t = Open(truncated, 0);
  EXPECT_EQ(t.code, OXI_DATA_LOSS);
  EXPECT_THAT(t.error, HasSubstr(truncated));
  EXPECT_THAT(t.error, HasSubstr("truncated"));

  const std::string garbage = TmpPath("garbage.safetensors");
  ASSERT_TRUE(
      WriteStringToFile(garbage, std::string("\x10\0\0\0\0\0\0\0{\"a\": nope}     ", 24)).ok());
  Opened g = Open(garbage, 0);
  EXPECT_EQ(g.code, OXI_INVALID_ARGUMENT);
  EXPECT_THAT(g.error, HasSubstr(garbage));
  EXPECT_THAT(g.error, HasSubstr("1:"));

  char error[64] = {};
  EXPECT_EQ(HostServices()->weights_open(nullptr, 0, &m.w, error, sizeof error),
            OXI_INVALID_ARGUMENT);
  EXPECT_EQ(HostServices()->weights_open(missing.c_str(), 0, nullptr, error, sizeof error),
            OXI_INVALID_ARGUMENT);
}

// A FIFO where the checkpoint should be is refused, not waited on.
TEST(HostWeightsTest, RefusesAFifoPromptly) {
  const std::string dir = MakeDir("fifo_model");
  const std::string fifo = dir + "/model.safetensors";
  unlink(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  Opened o = Open(dir, OXI_WEIGHTS_MMAP);
  EXPECT_EQ(o.code, OXI_INVALID_ARGUMENT);
  EXPECT_THAT(o.error, HasSubstr(fifo));
  EXPECT_THAT(o.error, HasSubstr("FIFO"));
}

TEST(HostWeightsTest, HandlesOnSeveralThreadsAtOnce) {
  constexpr int kThreads = 4;
  std::vector<std::string> paths;
  for (int i = 0; i < kThreads; ++i) {
    paths.push_back(TmpPath(absl::StrCat("thread", i, ".safetensors")));
    ASSERT_TRUE(WriteSafetensors(paths.back(), Fixture()).ok());
  }
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      const std::vector<NamedTensor> want = Fixture();
      for (int round = 0; round < 50; ++round) {
        const oxi_weights* w = nullptr;
        char error[256];
        if (HostServices()->weights_open(paths[i].c_str(), round % 2 ? OXI_WEIGHTS_MMAP : 0, &w,
                                         error, sizeof error) != OXI_OK) {
          ++failures[i];
          continue;
        }
        for (int64_t k = 0; k < w->n_tensors; ++k) {
          const oxi_weight_tensor& t = w->tensors[k];
          for (const NamedTensor& n : want) {
            if (n.first == t.name && std::memcmp(t.data, n.second.data(), t.size) != 0) {
              ++failures[i];
            }
          }
          HostServices()->weights_release(w, k);
        }
        HostServices()->weights_close(w);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures, std::vector<int>(kThreads, 0));
}

TEST(HostWeightsTest, TheSdkFindsTensorsByName) {
  const std::string path = TmpPath("sdk.safetensors");
  ASSERT_TRUE(WriteSafetensors(path, Fixture()).ok());
  auto w = sdk::Weights::Open(path, /*use_mmap=*/true, HostServices());
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_EQ(w->size(), 5);
  for (const char* name : {"Z", "a", "a.b", "a_b", "b"}) EXPECT_TRUE(w->Has(name)) << name;
  EXPECT_FALSE(w->Has("a.c"));
  auto b = w->Get("b", {2, 3});
  ASSERT_TRUE(b.ok()) << b.status().message();
  auto wrong = w->Get("b", {3, 2});
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(wrong.status().message(), HasSubstr(path));
  EXPECT_THAT(wrong.status().message(), HasSubstr("[2, 3]"));
  auto none = w->Get("nope");
  EXPECT_EQ(none.status().code(), OXI_NOT_FOUND);
}

}  // namespace
}  // namespace oxinfer
