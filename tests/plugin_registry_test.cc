#include "core/plugin_registry.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "oxinfer/plugin_abi.h"

namespace oxinfer {
namespace {

// Paths are relative to the runfiles root, the test's working directory.
constexpr char kBadAbi[] = "tests/plugins/liboxinfer_bad_abi.so";
constexpr char kDeclining[] = "tests/plugins/liboxinfer_declining.so";
constexpr char kNoEntry[] = "tests/plugins/liboxinfer_no_entry.so";
constexpr char kTruncated[] = "tests/plugins/liboxinfer_truncated_descriptor.so";
constexpr char kExample[] = "examples/third_party_plugin/liboxinfer_example.so";

std::string TempDir(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string dir = std::string(base ? base : "/tmp") + "/" + name;
  std::string cmd = "rm -rf '" + dir + "' && mkdir -p '" + dir + "'";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  return dir;
}

void CopyFile(const std::string& from, const std::string& to) {
  std::ifstream in(from, std::ios::binary);
  std::ofstream out(to, std::ios::binary);
  out << in.rdbuf();
}

const PluginRecord* Find(const PluginRegistry& r, const std::string& path_suffix) {
  for (const auto& rec : r.plugins()) {
    if (absl::EndsWith(rec.path, path_suffix)) return &rec;
  }
  return nullptr;
}

TEST(PluginRegistryTest, RefusesAnotherAbiMajorNamingBothVersions) {
  PluginRegistry registry;
  absl::Status s = registry.LoadFile(kBadAbi);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(s.message(), "liboxinfer_bad_abi.so")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "built for plugin ABI 2.3")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "this host speaks ABI 1.")) << s;
  ASSERT_EQ(registry.plugins().size(), 1u);
  EXPECT_EQ(registry.plugins()[0].state, PluginState::kRejected);
  EXPECT_EQ(registry.plugins()[0].abi_major, 2u);
}

TEST(PluginRegistryTest, RefusesFileWithoutEntrySymbol) {
  PluginRegistry registry;
  absl::Status s = registry.LoadFile(kNoEntry);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(absl::StrContains(s.message(), "no entry symbol 'oxinfer_plugin_entry'")) << s;
  EXPECT_EQ(registry.plugins()[0].state, PluginState::kRejected);
}

TEST(PluginRegistryTest, RefusesTruncatedDescriptor) {
  PluginRegistry registry;
  absl::Status s = registry.LoadFile(kTruncated);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(absl::StrContains(s.message(), "descriptor too small")) << s;
}

TEST(PluginRegistryTest, RecordsDeclineWithReason) {
  PluginRegistry registry;
  absl::Status s = registry.LoadFile(kDeclining);
  EXPECT_FALSE(s.ok());
  ASSERT_EQ(registry.plugins().size(), 1u);
  const PluginRecord& r = registry.plugins()[0];
  EXPECT_EQ(r.state, PluginState::kDeclined);
  EXPECT_EQ(r.name, "declining");
  EXPECT_EQ(r.score, 0);
  EXPECT_EQ(r.reason, "needs a device this machine does not have");
  EXPECT_FALSE(registry.ChooseBackend("declining").ok());
  EXPECT_TRUE(
      absl::StrContains(registry.ChooseBackend("declining").status().message(), "needs a device"));
}

TEST(PluginRegistryTest, ScanGoesOnPastBadFiles) {
  const std::string dir = TempDir("scan");
  CopyFile(kBadAbi, dir + "/liboxinfer_bad_abi.so");
  CopyFile(kNoEntry, dir + "/liboxinfer_no_entry.so");
  CopyFile(kExample, dir + "/liboxinfer_example.so");
  CopyFile(kDeclining, dir + "/liboxinfer_declining.so");
  {
    std::ofstream text(dir + "/liboxinfer_text.so");
    text << "this is not a shared object\n";
  }
  std::ofstream(dir + "/liboxinfer_empty.so").close();
  std::ofstream(dir + "/unrelated.so") << "ignored: wrong prefix";

  PluginRegistry registry;
  registry.ScanDirectories({dir});
  ASSERT_EQ(registry.plugins().size(), 6u);

  const PluginRecord* text = Find(registry, "liboxinfer_text.so");
  ASSERT_NE(text, nullptr);
  EXPECT_EQ(text->state, PluginState::kRejected);
  EXPECT_TRUE(absl::StrContains(text->reason, "not a shared object")) << text->reason;
  EXPECT_EQ(Find(registry, "liboxinfer_empty.so")->state, PluginState::kRejected);
  EXPECT_EQ(Find(registry, "liboxinfer_bad_abi.so")->state, PluginState::kRejected);
  EXPECT_EQ(Find(registry, "liboxinfer_declining.so")->state, PluginState::kDeclined);

  const PluginRecord* example = Find(registry, "liboxinfer_example.so");
  ASSERT_NE(example, nullptr);
  EXPECT_EQ(example->state, PluginState::kLoaded) << example->reason;
  EXPECT_EQ(example->name, "example");
  EXPECT_EQ(example->version, "1.0.0");
  EXPECT_EQ(example->score, 1);
  auto chosen = registry.ChooseBackend("auto");
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  EXPECT_EQ((*chosen)->name, "example");
  EXPECT_EQ(registry.ChooseBackend("nonexistent").status().code(), absl::StatusCode::kNotFound);
}

TEST(PluginRegistryTest, FirstFolderWinsForTheSameName) {
  const std::string a = TempDir("first"), b = TempDir("second");
  CopyFile(kExample, a + "/liboxinfer_example.so");
  CopyFile(kExample, b + "/liboxinfer_example.so");
  PluginRegistry registry;
  registry.ScanDirectories({a, b});
  ASSERT_EQ(registry.plugins().size(), 2u);
  EXPECT_EQ(registry.plugins()[0].state, PluginState::kLoaded);
  EXPECT_EQ(registry.plugins()[1].state, PluginState::kRejected);
  EXPECT_TRUE(absl::StrContains(registry.plugins()[1].reason, "shadowed by"))
      << registry.plugins()[1].reason;
}

TEST(PluginRegistryTest, SearchPathOrder) {
  const std::string a = TempDir("flag"), b = TempDir("env");
  setenv("OXINFER_PLUGIN_PATH", (b + ":/nonexistent").c_str(), 1);
  auto dirs = PluginRegistry::SearchPath(a + ":" + a);
  unsetenv("OXINFER_PLUGIN_PATH");
  ASSERT_GE(dirs.size(), 3u);  // flag, env, the executable's folder
  EXPECT_EQ(dirs[0], a);
  EXPECT_EQ(dirs[1], b);
}

}  // namespace
}  // namespace oxinfer
