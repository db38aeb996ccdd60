// core/hub against the loopback Hub (fake_hub.h): the cache layout
// huggingface_hub uses, file selection, and recovery from every fault the
// fake can inject; no corrupt or partial file ever reaches a snapshot.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/hub/model_fetch.h"
#include "core/hub/repo_cache.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/hub/fake_hub.h"

namespace oxinfer::hub {
namespace {

using testing::FakeFile;
using testing::FakeHub;
using testing::Faults;
using ::testing::HasSubstr;

constexpr char kCommit[] = "0123456789abcdef0123456789abcdef01234567";

std::string RandomBytes(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool Exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

std::vector<std::string> List(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return out;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] != '.') out.push_back(e->d_name);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<FakeFile> TinyRepo() {
  return {
      {"config.json", R"({"model_type": "qwen3_5"})", false},
      {"tokenizer.json", R"({"model": {"type": "BPE"}})", false},
      {"model.safetensors", RandomBytes(300000, 1), true},
      {"model.onnx", RandomBytes(1000, 2), true},
      {"onnx/model.onnx", RandomBytes(1000, 3), true},
      {"model-q4_0.gguf", RandomBytes(1000, 4), true},
      {"pytorch_model.bin", RandomBytes(1000, 5), true},
      {"README.md", "# tiny", false},
  };
}

class HubDownloadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    hub_ = std::make_unique<FakeHub>();
    hub_->AddRepo("org/tiny", kCommit, TinyRepo());
    cache_ = absl::StrCat(std::getenv("TEST_TMPDIR"), "/cache-",
                          ::testing::UnitTest::GetInstance()->current_test_info()->name());
    settings_.endpoint = hub_->endpoint();
    settings_.cache_dir = cache_;
    settings_.retry_delay_s = 0.01;
    settings_.stall_timeout_s = 20;
  }

  absl::StatusOr<std::string> Fetch(const std::string& repo = "org/tiny",
                                    const std::string& rev = "main") {
    return FetchModel(RepoSpec{repo, rev}, settings_);
  }

  std::string Blob(const std::string& bytes, bool lfs) {
    return RepoCache(cache_, "org/tiny")
        .BlobPath(lfs ? FakeHub::Sha256(bytes) : FakeHub::GitBlobId(bytes));
  }

  // The snapshot holds exactly the wanted files, byte for byte, and blobs/
  // nothing partial.
  void ExpectWholeSnapshot(const std::string& dir) {
    const std::vector<FakeFile> files = TinyRepo();
    EXPECT_EQ(List(dir),
              (std::vector<std::string>{"config.json", "model.safetensors", "tokenizer.json"}));
    for (const FakeFile& f : files) {
      if (!Exists(dir + "/" + f.path)) continue;
      EXPECT_EQ(ReadAll(dir + "/" + f.path), f.bytes) << f.path;
    }
    for (const std::string& b : List(cache_ + "/models--org--tiny/blobs")) {
      EXPECT_FALSE(absl::EndsWith(b, ".incomplete")) << b;
    }
  }

  std::unique_ptr<FakeHub> hub_;
  std::string cache_;
  HubSettings settings_;
};

TEST_F(HubDownloadTest, LaysOutTheCacheLikeHuggingfaceHub) {
  absl::StatusOr<std::string> dir = Fetch();
  ASSERT_TRUE(dir.ok()) << dir.status();
  EXPECT_EQ(*dir, cache_ + "/models--org--tiny/snapshots/" + kCommit);
  ExpectWholeSnapshot(*dir);
  EXPECT_EQ(ReadAll(cache_ + "/models--org--tiny/refs/main"), kCommit);
  // Relative links into blobs/, named by sha256 (LFS) or git blob id.
  char target[512] = {0};
  ASSERT_GT(::readlink((*dir + "/model.safetensors").c_str(), target, sizeof target - 1), 0);
  EXPECT_EQ(std::string(target), "../../blobs/" + FakeHub::Sha256(TinyRepo()[2].bytes));
  EXPECT_TRUE(Exists(Blob(TinyRepo()[0].bytes, false)));
  // Nothing of other frameworks was fetched, and no token reached the CDN.
  EXPECT_EQ(hub_->total_downloads(), 3);
  EXPECT_EQ(hub_->downloads("model.onnx") + hub_->downloads("model-q4_0.gguf"), 0);
  EXPECT_EQ(hub_->cdn_authorizations(), 0);
}

TEST_F(HubDownloadTest, ReusesTheCacheAndWorksOffline) {
  ASSERT_TRUE(Fetch().ok());
  ASSERT_TRUE(Fetch().ok());
  EXPECT_EQ(hub_->total_downloads(), 3);  // the second run downloaded nothing
  hub_.reset();                           // the Hub is gone
  settings_.max_attempts = 1;
  absl::StatusOr<std::string> dir = Fetch();  // unreachable: the cache serves
  ASSERT_TRUE(dir.ok()) << dir.status();
  settings_.offline = true;
  dir = Fetch();
  ASSERT_TRUE(dir.ok()) << dir.status();
  ExpectWholeSnapshot(*dir);
  dir = Fetch("org/tiny", kCommit);
  ASSERT_TRUE(dir.ok()) << dir.status();
  absl::StatusOr<std::string> other = Fetch("org/other");
  ASSERT_FALSE(other.ok());
  EXPECT_THAT(other.status().message(), HasSubstr("HF_HUB_OFFLINE"));
  EXPECT_THAT(other.status().message(), HasSubstr("org/other@main"));
}

TEST_F(HubDownloadTest, UsesWhatTransformersDownloaded) {
  // A cache written by huggingface_hub: the same layout, nothing to fetch.
  const RepoCache cache(cache_, "org/tiny");
  for (const FakeFile& f : TinyRepo()) {
    if (f.path != "config.json" && f.path != "tokenizer.json" && f.path != "model.safetensors") {
      continue;
    }
    const std::string etag = f.lfs ? FakeHub::Sha256(f.bytes) : FakeHub::GitBlobId(f.bytes);
    ASSERT_TRUE(MakeDirectories(cache.root() + "/blobs").ok());
    std::ofstream(cache.BlobPath(etag), std::ios::binary) << f.bytes;
    ASSERT_TRUE(cache.LinkSnapshotFile(kCommit, f.path, etag).ok());
  }
  absl::StatusOr<std::string> dir = Fetch();
  ASSERT_TRUE(dir.ok()) << dir.status();
  EXPECT_EQ(hub_->total_downloads(), 0);
  ExpectWholeSnapshot(*dir);
}

TEST_F(HubDownloadTest, ResumesAfterAConnectionCutMidFile) {
  Faults f;
  f.cut_once = {"model.safetensors", "config.json"};
  hub_->SetFaults(f);
  absl::StatusOr<std::string> dir = Fetch();
  ASSERT_TRUE(dir.ok()) << dir.status();
  ExpectWholeSnapshot(*dir);
  EXPECT_EQ(hub_->downloads("model.safetensors"), 2);
  EXPECT_EQ(hub_->ranges("model.safetensors"),
            std::vector<std::string>{absl::StrCat("bytes=", 300000 / 2, "-")});
}

TEST_F(HubDownloadTest, ResumesWhatAKilledProcessLeft) {
  const std::string bytes = TinyRepo()[2].bytes;
  const std::string incomplete = Blob(bytes, true) + ".incomplete";
  ASSERT_TRUE(MakeDirectories(cache_ + "/models--org--tiny/blobs").ok());
  std::ofstream(incomplete, std::ios::binary) << bytes.substr(0, 1000);
  absl::StatusOr<std::string> dir = Fetch();
  ASSERT_TRUE(dir.ok()) << dir.status();
  ExpectWholeSnapshot(*dir);
  EXPECT_EQ(hub_->ranges("model.safetensors"), std::vector<std::string>{"bytes=1000-"});
}

TEST_F(HubDownloadTest, DiscardsAPartialFileThatIsNotAPrefix) {
  // Garbage from another file: resumed, fails sha256, downloaded again whole.
  const std::string bytes = TinyRepo()[2].bytes;
  ASSERT_TRUE(MakeDirectories(cache_ + "/models--org--tiny/blobs").ok());
  std::ofstream(Blob(bytes, true) + ".incomplete", std::ios::binary) << RandomBytes(5000, 9);
  absl::StatusOr<std::string> dir = Fetch();
  ASSERT_TRUE(dir.ok()) << dir.status();
  ExpectWholeSnapshot(*dir);
  EXPECT_EQ(hub_->downloads("model.safetensors"), 2);
}

TEST_F(HubDownloadTest, RecoversFromA416) {
  const std::string bytes = TinyRepo()[2].bytes;
  ASSERT_TRUE(MakeDirectories(cache_ + "/models--org--tiny/blobs").ok());
  std::ofstream(Blob(bytes, true) + ".incomplete", std::ios::binary) << bytes.substr(0, 7000);
  Faults f;
  f.range_416_once = {"model.safetensors"};
  hub_->SetFaults(f);
  absl::StatusOr<std::string> dir = Fetch();
  ASSERT_TRUE(dir.ok()) << dir.status();
  ExpectWholeSnapshot(*dir);
  EXPECT_EQ(hub_->ranges("model.safetensors"), std::vector<std::string>{"bytes=7000-"});
  EXPECT_EQ(hub_->downloads("model.safetensors"), 2);
}

TEST_F(HubDownloadTest, RetriesAWrongChecksum) {
  Faults f;
  f.corrupt_once = {"model.safetensors"};
  hub_->SetFaults(f);
  absl::StatusOr<std::string> dir = Fetch();
  ASSERT_TRUE(dir.ok()) << dir.status();
  ExpectWholeSnapshot(*dir);
  EXPECT_EQ(hub_->downloads("model.safetensors"), 2);
}

TEST_F(HubDownloadTest, NeverKeepsACorruptFile) {
  Faults f;
  f.corrupt_always = {"model.safetensors"};
  hub_->SetFaults(f);
  absl::StatusOr<std::string> dir = Fetch();
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(dir.status().message(), HasSubstr("model.safetensors"));
  EXPECT_THAT(dir.status().message(), HasSubstr("sha256"));
  const std::string bytes = TinyRepo()[2].bytes;
  EXPECT_FALSE(Exists(Blob(bytes, true)));
  EXPECT_FALSE(Exists(Blob(bytes, true) + ".incomplete"));
  EXPECT_FALSE(Exists(cache_ + "/models--org--tiny/snapshots/" + kCommit + "/model.safetensors"));
}

TEST_F(HubDownloadTest, WaitsForRetryAfterOn429AndRetries5xx) {
  Faults f;
  f.rate_limit_downloads = 1;
  f.server_errors = 2;
  hub_->SetFaults(f);
  absl::StatusOr<std::string> dir = Fetch();
  ASSERT_TRUE(dir.ok()) << dir.status();
  ExpectWholeSnapshot(*dir);
  EXPECT_EQ(hub_->total_downloads(), 6);
  // A Retry-After beyond what the settings accept fails with a clear message.
  hub_ = std::make_unique<FakeHub>();
  hub_->AddRepo("org/tiny", kCommit, TinyRepo());
  f.rate_limit_downloads = 100;
  hub_->SetFaults(f);
  settings_.endpoint = hub_->endpoint();
  settings_.max_retry_after_s = 0.5;
  cache_ += "-2";
  settings_.cache_dir = cache_;
  dir = Fetch();
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(dir.status().message(), HasSubstr("rate-limited"));
}

TEST_F(HubDownloadTest, SlowFilesDownloadInParallel) {
  std::vector<FakeFile> files = TinyRepo();
  Faults f;
  for (int i = 0; i < 4; ++i) {
    files.push_back({absl::StrCat("model-0000", i + 1, "-of-00004.safetensors"),
                     RandomBytes(20000, 10 + i), true});
    f.slow.insert(files.back().path);
  }
  hub_->AddRepo("org/tiny", kCommit, files);
  hub_->SetFaults(f);
  std::atomic<int> calls{0};
  int64_t last_done = 0, last_total = 0;
  absl::StatusOr<std::string> dir =
      FetchModel(RepoSpec{"org/tiny", "main"}, settings_,
                 [&](int64_t done, int64_t total, const std::string&) {
                   ++calls;
                   last_done = done;
                   last_total = total;
                 });
  ASSERT_TRUE(dir.ok()) << dir.status();
  EXPECT_EQ(List(*dir).size(), 7u);
  EXPECT_GE(hub_->max_in_flight(), 2);
  EXPECT_GT(calls.load(), 4);
  EXPECT_EQ(last_done, last_total);
}

TEST_F(HubDownloadTest, TwoDownloadersShareOneBlob) {
  Faults f;
  f.slow = {"model.safetensors"};
  hub_->SetFaults(f);
  absl::StatusOr<std::string> a, b;
  std::thread other([&] { b = Fetch(); });
  a = Fetch();
  other.join();
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  ExpectWholeSnapshot(*a);
  EXPECT_EQ(hub_->downloads("model.safetensors"), 1);
}

TEST_F(HubDownloadTest, GatedRepositoryNeedsAToken) {
  Faults f;
  f.token = "hf_secret";
  hub_->SetFaults(f);
  absl::StatusOr<std::string> dir = Fetch();
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(dir.status().message(), HasSubstr("org/tiny"));
  EXPECT_THAT(dir.status().message(), HasSubstr("HF_TOKEN"));
  EXPECT_THAT(dir.status().message(), HasSubstr("gated"));
  settings_.token = "hf_secret";
  dir = Fetch();
  ASSERT_TRUE(dir.ok()) << dir.status();
  ExpectWholeSnapshot(*dir);
  EXPECT_EQ(hub_->cdn_authorizations(), 0);  // the token stays with the Hub
}

TEST_F(HubDownloadTest, NamesWhatIsNotFound) {
  absl::StatusOr<std::string> dir = Fetch("org/none");
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(dir.status().message(), HasSubstr("org/none: no such repository"));
  dir = Fetch("org/tiny", "v9");
  ASSERT_FALSE(dir.ok());
  EXPECT_THAT(dir.status().message(), HasSubstr("no revision 'v9'"));
  Faults f;
  f.missing = {"tokenizer.json"};
  hub_->SetFaults(f);
  dir = Fetch();
  ASSERT_FALSE(dir.ok());
  EXPECT_THAT(dir.status().message(), HasSubstr("org/tiny@main has no file 'tokenizer.json'"));
}

TEST_F(HubDownloadTest, RefusesARepositoryWithoutAModel) {
  hub_->AddRepo("org/data", kCommit, {{"data.csv", "a,b", false}});
  absl::StatusOr<std::string> dir = Fetch("org/data");
  ASSERT_FALSE(dir.ok());
  EXPECT_THAT(dir.status().message(), HasSubstr("neither config.json nor model_index.json"));
}

}  // namespace
}  // namespace oxinfer::hub
