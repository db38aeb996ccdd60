// Image requests on the engine_test model in its text-to-image mode, and
// image files written through the PNG codec plugin.
#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "core/engine/atomic_file.h"
#include "core/engine/engine.h"
#include "gtest/gtest.h"
#include "tests/engine/engine_test_support.h"

namespace oxinfer::engine {
namespace {

using testing::MakeModel;
using testing::OpenEngine;
using testing::TestModel;

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The number of the folder's entries other than `keep`.
int OtherEntries(const std::string& dir, const std::string& keep) {
  int n = 0;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != ".." && name != keep) ++n;
    }
    ::closedir(d);
  }
  return n;
}

class EngineImageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = MakeModel("images", R"("image_output": true)");
    auto engine = OpenEngine(model_.dir);
    ASSERT_TRUE(engine.ok()) << engine.status();
    engine_ = *std::move(engine);
  }
  TestModel model_;
  std::unique_ptr<Engine> engine_;
};

TEST_F(EngineImageTest, GeneratesWithProgressAndCanBeCancelled) {
  ImageRequest request;
  request.prompt = "a fox";
  request.width = 4;
  request.height = 2;
  request.steps = 5;
  int calls = 0;
  request.progress = [&](int32_t step, int32_t total) {
    EXPECT_EQ(total, 5);
    EXPECT_EQ(step, ++calls);
    return true;
  };
  auto image = engine_->GenerateImage(request);
  ASSERT_TRUE(image.ok()) << image.status();
  EXPECT_EQ(image->width, 4);
  EXPECT_EQ(image->height, 2);
  EXPECT_EQ(image->pixels.size(), 4u * 2 * 3);
  EXPECT_EQ(calls, 5);

  request.progress = [](int32_t step, int32_t) { return step < 2; };
  auto cancelled = engine_->GenerateImage(request);
  ASSERT_FALSE(cancelled.ok());
  EXPECT_EQ(cancelled.status().code(), absl::StatusCode::kCancelled);
  request.prompt.clear();
  EXPECT_EQ(engine_->GenerateImage(request).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(EngineImageTest, ImageModelsHaveNoSessions) {
  auto session = engine_->NewSession({});
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(EngineImageTest, DestinationCheckedBeforeGenerating) {
  EXPECT_TRUE(engine_->CheckImageDestination(model_.dir + "/ok.png").ok());
  auto no_codec = engine_->CheckImageDestination(model_.dir + "/x.bmpx");
  EXPECT_TRUE(absl::StrContains(no_codec.message(), "no codec plugin writes .bmpx")) << no_codec;
  EXPECT_FALSE(engine_->CheckImageDestination(model_.dir + "/no_extension").ok());
  auto no_folder = engine_->CheckImageDestination(model_.dir + "/missing/out.png");
  EXPECT_FALSE(no_folder.ok());
  EXPECT_TRUE(absl::StrContains(no_folder.message(), "missing")) << no_folder;
  EXPECT_EQ(OtherEntries(model_.dir, ""), OtherEntries(model_.dir, "ok.png"));  // nothing left
}

TEST_F(EngineImageTest, WritesAPngAtomically) {
  ImageRequest request;
  request.prompt = "noise";
  request.width = 64;
  request.height = 64;
  auto image = engine_->GenerateImage(request);
  ASSERT_TRUE(image.ok()) << image.status();
  for (size_t i = 0; i < image->pixels.size(); ++i) image->pixels[i] = (i * 7919) % 251;
  const std::string dir = model_.dir + "/out";
  ::mkdir(dir.c_str(), 0755);
  const std::string path = dir + "/a.png";
  ASSERT_TRUE(engine_->WriteImage(*image, path).ok());
  const std::string png = Slurp(path);
  ASSERT_GT(png.size(), 8u);
  EXPECT_EQ(png.substr(1, 3), "PNG");
  EXPECT_EQ(OtherEntries(dir, "a.png"), 0);

  // A write that fails half-way (the file size limit) leaves the old file.
  std::ofstream(path, std::ios::trunc) << "old";
  signal(SIGXFSZ, SIG_IGN);
  struct rlimit old_limit;
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  struct rlimit small = old_limit;
  small.rlim_cur = 100;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  absl::Status failed = engine_->WriteImage(*image, path);
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &old_limit), 0);
  EXPECT_FALSE(failed.ok());
  EXPECT_TRUE(absl::StrContains(failed.message(), path)) << failed;
  EXPECT_EQ(Slurp(path), "old");
  EXPECT_EQ(OtherEntries(dir, "a.png"), 0);  // no temporary file left behind
}

TEST(AtomicFileTest, ReplacesAndKeepsTheMode) {
  const std::string dir = MakeModel("atomic", "").dir;
  const std::string path = dir + "/f.txt";
  ASSERT_TRUE(WriteFileAtomically(path, "one").ok());
  EXPECT_EQ(Slurp(path), "one");
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  ASSERT_TRUE(WriteFileAtomically(path, "two").ok());
  EXPECT_EQ(Slurp(path), "two");
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_FALSE(WriteFileAtomically(dir + "/missing/f.txt", "x").ok());
  EXPECT_FALSE(CheckFolderWritable(dir + "/missing/f.txt").ok());
}

}  // namespace
}  // namespace oxinfer::engine
