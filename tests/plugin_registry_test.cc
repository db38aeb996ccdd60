// The plugin registry over small test plugins (tests/plugins): descriptor and
// table checks, declines, scanning, the name-clash rule, backend records and
// the choice of backends by device.
#include "core/plugin_registry.h"

#include <climits>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/paths.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "oxinfer/plugin_abi.h"

namespace oxinfer {
namespace {

using ::testing::HasSubstr;

// Paths are relative to the runfiles root, the test's working directory.
std::string Plugin(const std::string& name) { return "tests/plugins/liboxinfer_" + name + ".so"; }

std::string RealPath(const std::string& path) {
  char buf[PATH_MAX];
  return ::realpath(path.c_str(), buf) != nullptr ? std::string(buf) : path;
}

std::string TempDir(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string dir = std::string(base ? base : "/tmp") + "/" + name;
  std::string cmd = "rm -rf '" + dir + "' && mkdir -p '" + dir + "'";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  return RealPath(dir);
}

void CopyFile(const std::string& from, const std::string& to) {
  std::ifstream in(from, std::ios::binary);
  std::ofstream out(to, std::ios::binary);
  out << in.rdbuf();
  ASSERT_TRUE(in.good() && out.good()) << from << " -> " << to;
}

const PluginRecord* FindPath(const PluginRegistry& r, const std::string& path_suffix) {
  for (const auto& rec : r.plugins()) {
    if (absl::EndsWith(rec.path, path_suffix)) return &rec;
  }
  return nullptr;
}

// A registry holding the given test plugins, loaded by LoadFile in order.
void Load(PluginRegistry* registry, const std::vector<std::string>& names) {
  for (const std::string& n : names) registry->LoadFile(Plugin(n)).IgnoreError();
}

TEST(PluginRegistryTest, RefusesOtherAbiMajorsNamingBothVersions) {
  PluginRegistry registry;
  absl::Status old_abi = registry.LoadFile(Plugin("old_abi"));
  EXPECT_EQ(old_abi.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(old_abi.message(), HasSubstr(absl::StrCat("liboxinfer_old_abi.so: built for plugin ABI 1.1, "
                                                        "this host speaks ABI 2.",
                                                        OXI_ABI_MINOR, " (major versions differ)")));
  absl::Status future = registry.LoadFile(Plugin("bad_abi"));
  EXPECT_THAT(future.message(), HasSubstr(absl::StrCat("liboxinfer_bad_abi.so: built for plugin ABI 3.0, "
                                                       "this host speaks ABI 2.",
                                                       OXI_ABI_MINOR, " (major versions differ)")));
  ASSERT_EQ(registry.plugins().size(), 2u);
  EXPECT_EQ(registry.plugins()[0].state, PluginState::kRejected);
  EXPECT_EQ(registry.plugins()[0].abi_major, 1u);
  EXPECT_EQ(registry.plugins()[0].abi_minor, 1u);
  EXPECT_EQ(registry.plugins()[1].abi_major, 3u);
}

TEST(PluginRegistryTest, RefusesFileWithoutEntrySymbol) {
  PluginRegistry registry;
  absl::Status s = registry.LoadFile(Plugin("no_entry"));
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("no entry symbol 'oxinfer_plugin_entry'"));
  EXPECT_EQ(registry.plugins()[0].state, PluginState::kRejected);
}

TEST(PluginRegistryTest, RefusesTruncatedDescriptor) {
  PluginRegistry registry;
  absl::Status s = registry.LoadFile(Plugin("truncated_descriptor"));
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("descriptor too small (16 bytes"));
}

TEST(PluginRegistryTest, RefusesBackendTablesMissingEntriesNamingThem) {
  PluginRegistry registry;
  absl::Status incomplete = registry.LoadFile(Plugin("incomplete_table"));
  EXPECT_EQ(incomplete.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(incomplete.message(),
              HasSubstr("backend 'incomplete-table' lacks buffer_read, execute, supports "
                        "(required without OXI_BACKEND_COMPLETE)"));
  absl::Status small = registry.LoadFile(Plugin("small_table"));
  EXPECT_EQ(small.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(small.message(), HasSubstr("backend 'small-table' has a "));
  EXPECT_THAT(small.message(), HasSubstr("smaller than ABI 2.0's"));
  for (const PluginRecord& r : registry.plugins()) EXPECT_EQ(r.state, PluginState::kRejected);
}

TEST(PluginRegistryTest, RecordsDeclineWithReason) {
  PluginRegistry registry;
  EXPECT_FALSE(registry.LoadFile(Plugin("declining")).ok());
  ASSERT_EQ(registry.plugins().size(), 1u);
  const PluginRecord& r = registry.plugins()[0];
  EXPECT_EQ(r.state, PluginState::kDeclined);
  EXPECT_EQ(r.name, "declining");
  EXPECT_EQ(r.score, 0);
  EXPECT_EQ(r.reason, "needs a device this machine does not have");
  Load(&registry, {"test_cpu"});
  auto chosen = registry.ChooseBackends("declining");
  EXPECT_EQ(chosen.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(chosen.status().message(), HasSubstr("is declined: needs a device"));
}

TEST(PluginRegistryTest, BackendRecordsDescribeKindFlagsAndDevice) {
  PluginRegistry registry;
  Load(&registry, {"partial_gpu", "test_cpu"});
  ASSERT_EQ(registry.plugins().size(), 2u);
  const PluginRecord& gpu = registry.plugins()[0];
  ASSERT_EQ(gpu.state, PluginState::kLoaded) << gpu.reason;
  EXPECT_EQ(gpu.backend.device_name, "test-gpu");
  EXPECT_EQ(gpu.backend.device_kind, OXI_DEVICE_GPU);
  EXPECT_FALSE(gpu.backend.complete());
  EXPECT_TRUE(gpu.backend.host_memory());  // the SDK's host-memory buffers
  EXPECT_EQ(BackendFlagsName(gpu.backend.flags), "partial, host memory");
  EXPECT_STREQ(DeviceKindName(gpu.backend.device_kind), "gpu");
  ASSERT_TRUE(gpu.backend.device.has_value());
  EXPECT_EQ(gpu.backend.device->name, "device of test-gpu");
  EXPECT_EQ(gpu.backend.device->compute_units, 7);
  EXPECT_EQ(gpu.backend.device->memory_total, uint64_t{3} << 30);
  EXPECT_EQ(gpu.backend.device->memory_free, uint64_t{1} << 30);
  EXPECT_EQ(gpu.backend.device->subgroup_size, 32);
  EXPECT_EQ(gpu.backend.device->driver, "test driver 1.2");
  EXPECT_EQ(gpu.backend_iface(), gpu.iface);

  const PluginRecord& cpu = registry.plugins()[1];
  EXPECT_EQ(cpu.backend.device_kind, OXI_DEVICE_CPU);
  EXPECT_EQ(BackendFlagsName(cpu.backend.flags), "complete, host memory");
  EXPECT_STREQ(DeviceKindName(OXI_DEVICE_ACCEL), "accel");
  EXPECT_STREQ(DeviceKindName(42), "?");
}

TEST(PluginRegistryTest, ScanGoesOnPastBadFiles) {
  const std::string dir = TempDir("scan");
  CopyFile(Plugin("bad_abi"), dir + "/liboxinfer_bad_abi.so");
  CopyFile(Plugin("no_entry"), dir + "/liboxinfer_no_entry.so");
  CopyFile(Plugin("test_cpu"), dir + "/liboxinfer_test_cpu.so");
  CopyFile(Plugin("declining"), dir + "/liboxinfer_declining.so");
  std::ofstream(dir + "/liboxinfer_text.so") << "this is not a shared object\n";
  std::ofstream(dir + "/liboxinfer_empty.so").close();
  std::ofstream(dir + "/unrelated.so") << "ignored: wrong prefix";

  PluginRegistry registry;
  registry.ScanDirectories({dir});
  EXPECT_EQ(registry.searched(), std::vector<std::string>{dir});
  ASSERT_EQ(registry.plugins().size(), 6u);
  const PluginRecord* text = FindPath(registry, "liboxinfer_text.so");
  ASSERT_NE(text, nullptr);
  EXPECT_EQ(text->state, PluginState::kRejected);
  EXPECT_THAT(text->reason, HasSubstr("not a shared object"));
  EXPECT_EQ(FindPath(registry, "liboxinfer_empty.so")->state, PluginState::kRejected);
  EXPECT_EQ(FindPath(registry, "liboxinfer_bad_abi.so")->state, PluginState::kRejected);
  EXPECT_EQ(FindPath(registry, "liboxinfer_no_entry.so")->state, PluginState::kRejected);
  EXPECT_EQ(FindPath(registry, "liboxinfer_declining.so")->state, PluginState::kDeclined);
  const PluginRecord* cpu = FindPath(registry, "liboxinfer_test_cpu.so");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->state, PluginState::kLoaded) << cpu->reason;
  EXPECT_EQ(cpu->name, "test-cpu");
  EXPECT_EQ(cpu->version, "1.0.0");
  EXPECT_EQ(cpu->score, 10);
  EXPECT_EQ(registry.FindByName("test-cpu"), cpu);
  auto chosen = registry.ChooseBackends("auto");
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  EXPECT_EQ(chosen->accelerator, nullptr);
  EXPECT_EQ(chosen->cpu, cpu);
}

TEST(PluginRegistryTest, ChoosesTheBestCompleteCpuAndTheBestGpu) {
  PluginRegistry registry;
  Load(&registry, {"test_cpu", "accel", "partial_gpu", "cpu_partial", "test_cpu_fast", "model"});
  const PluginRecord* fast = registry.FindByName("test-cpu-fast");
  const PluginRecord* gpu = registry.FindByName("test-gpu");
  ASSERT_NE(fast, nullptr);
  ASSERT_NE(gpu, nullptr);
  ASSERT_EQ(registry.Loaded(OXI_PLUGIN_BACKEND).size(), 5u);

  auto expect = [&](absl::string_view device, const char* accelerator, const char* cpu) {
    SCOPED_TRACE(std::string(device));
    auto c = registry.ChooseBackends(device);
    ASSERT_TRUE(c.ok()) << c.status();
    if (accelerator == nullptr) {
      EXPECT_EQ(c->accelerator, nullptr);
    } else {
      ASSERT_NE(c->accelerator, nullptr);
      EXPECT_EQ(c->accelerator->name, accelerator);
    }
    ASSERT_NE(c->cpu, nullptr);
    EXPECT_EQ(c->cpu->name, cpu);
  };
  // The ACCEL backend scores best but "auto" never picks one.
  expect("auto", "test-gpu", "test-cpu-fast");
  expect("", "test-gpu", "test-cpu-fast");
  expect("gpu", "test-gpu", "test-cpu-fast");
  expect("cpu", nullptr, "test-cpu-fast");
  expect("test-accel", "test-accel", "test-cpu-fast");
  expect("test-cpu-partial", "test-cpu-partial", "test-cpu-fast");
  // A complete CPU backend named: it is the fallback, nothing else.
  expect("test-cpu", nullptr, "test-cpu");

  for (const char* prefix : {"test", "test-cp", "test-gp", "gp"}) {
    auto c = registry.ChooseBackends(prefix);
    EXPECT_EQ(c.status().code(), absl::StatusCode::kNotFound) << prefix;
    EXPECT_THAT(c.status().message(), HasSubstr("no backend named '"));
    EXPECT_THAT(c.status().message(),
                HasSubstr("test-gpu (tests/plugins/liboxinfer_partial_gpu.so): loaded, device "
                          "kind gpu, partial, host memory"));
  }
  auto model = registry.ChooseBackends("test-model");
  EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(model.status().message(), HasSubstr("is a model plugin, not a backend"));
}

TEST(PluginRegistryTest, NeverAnAccelBackendForAutoOrGpu) {
  PluginRegistry registry;
  Load(&registry, {"accel", "test_cpu"});
  auto chosen = registry.ChooseBackends("auto");
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  EXPECT_EQ(chosen->accelerator, nullptr);
  EXPECT_EQ(chosen->cpu->name, "test-cpu");
  auto gpu = registry.ChooseBackends("gpu");
  EXPECT_EQ(gpu.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(gpu.status().message(), HasSubstr("no usable GPU backend"));
  EXPECT_THAT(gpu.status().message(), HasSubstr("test-accel ("));
  EXPECT_THAT(gpu.status().message(), HasSubstr("loaded, device kind accel, partial"));
}

TEST(PluginRegistryTest, APartialCpuBackendIsNoFallback) {
  PluginRegistry registry;
  Load(&registry, {"cpu_partial", "partial_gpu", "declining"});
  for (const char* device : {"auto", "cpu", "gpu", "test-gpu", "test-cpu-partial"}) {
    auto c = registry.ChooseBackends(device);
    EXPECT_EQ(c.status().code(), absl::StatusCode::kNotFound) << device;
    EXPECT_THAT(c.status().message(), HasSubstr("no complete CPU backend is loaded")) << device;
    EXPECT_THAT(c.status().message(), HasSubstr("test-cpu-partial ("));
    EXPECT_THAT(c.status().message(), HasSubstr("loaded, device kind cpu, partial"));
    EXPECT_THAT(c.status().message(),
                HasSubstr("declining (tests/plugins/liboxinfer_declining.so): declined: needs a "
                          "device this machine does not have"));
  }
}

TEST(PluginRegistryTest, NoBackendAtAllSaysWhereItLooked) {
  const std::string dir = TempDir("nothing_here");
  PluginRegistry registry;
  registry.ScanDirectories({dir});
  auto c = registry.ChooseBackends("auto");
  EXPECT_EQ(c.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(c.status().message(),
              HasSubstr("No backend plugin was found at all; searched: " + dir));
}

// The installation's folders are scanned first (SearchPath), and the first of
// a name wins: a same-named plugin found later is shadowed, with a warning.
TEST(PluginRegistryTest, FirstFolderWinsNameClashesWithAWarning) {
  const std::string installed = TempDir("installed"), user = TempDir("user");
  CopyFile(Plugin("test_cpu"), installed + "/liboxinfer_test_cpu.so");
  CopyFile(Plugin("declining"), installed + "/liboxinfer_declining.so");
  CopyFile(Plugin("test_cpu_shadow"), user + "/liboxinfer_test_cpu.so");
  CopyFile(Plugin("declining"), user + "/liboxinfer_declining.so");
  PluginRegistry registry;
  ::testing::internal::CaptureStderr();
  registry.ScanDirectories({installed, user});
  const std::string warnings = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(registry.plugins().size(), 4u);

  const PluginRecord* winner = FindPath(registry, installed + "/liboxinfer_test_cpu.so");
  const PluginRecord* loser = FindPath(registry, user + "/liboxinfer_test_cpu.so");
  ASSERT_NE(winner, nullptr);
  ASSERT_NE(loser, nullptr);
  EXPECT_EQ(winner->state, PluginState::kLoaded);
  EXPECT_EQ(loser->state, PluginState::kShadowed);
  EXPECT_EQ(loser->version, "9.9.9-user");
  EXPECT_EQ(loser->shadowed_by, winner->path);
  EXPECT_EQ(loser->score, 0);  // never scored
  EXPECT_THAT(loser->reason, HasSubstr("shadowed by " + winner->path));
  EXPECT_THAT(warnings, HasSubstr("[oxinfer] warning: " + loser->path + ": shadowed by " +
                                  winner->path + " (same name 'test-cpu', found first)"));
  // A declined plugin wins too: the same plugin would decline again.
  EXPECT_EQ(FindPath(registry, user + "/liboxinfer_declining.so")->state, PluginState::kShadowed);
  EXPECT_EQ(registry.FindByName("test-cpu"), winner);
  auto chosen = registry.ChooseBackends("test-cpu");
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  EXPECT_EQ(chosen->cpu->version, "1.0.0");
}

// A plugin that could not be used at all claims no name.
TEST(PluginRegistryTest, ARejectedPluginShadowsNothing) {
  const std::string first = TempDir("first"), second = TempDir("second");
  CopyFile(Plugin("rejected_test_cpu"), first + "/liboxinfer_test_cpu.so");
  CopyFile(Plugin("test_cpu"), second + "/liboxinfer_test_cpu.so");
  PluginRegistry registry;
  registry.ScanDirectories({first, second});
  ASSERT_EQ(registry.plugins().size(), 2u);
  EXPECT_EQ(registry.plugins()[0].name, "test-cpu");
  EXPECT_EQ(registry.plugins()[0].state, PluginState::kRejected);
  EXPECT_THAT(registry.plugins()[0].reason, HasSubstr("smaller than ABI 2.0's"));
  EXPECT_EQ(registry.plugins()[1].state, PluginState::kLoaded) << registry.plugins()[1].reason;
  EXPECT_EQ(registry.FindByName("test-cpu"), &registry.plugins()[1]);
}

TEST(PluginRegistryTest, SearchPathPutsTheInstallationFirst) {
  const std::string flag = TempDir("flag"), env = TempDir("env");
  setenv("OXINFER_PLUGIN_PATH", (env + ":/nonexistent:" + flag).c_str(), 1);
  const std::vector<std::string> dirs = PluginRegistry::SearchPath(flag + ":" + flag);
  unsetenv("OXINFER_PLUGIN_PATH");
  // The test binary's folder, then --plugin-dir, then the variable; repeats
  // and missing folders dropped.
  ASSERT_EQ(dirs.size(), 3u);
  EXPECT_EQ(dirs[0], RealPath(ExecutableDir()));
  EXPECT_EQ(dirs[1], flag);
  EXPECT_EQ(dirs[2], env);
}


// --device NAME:N (ABI 2.1): device N of a backend that can select devices;
// the listing holds every device, and the backend's prefill chunk.
TEST(PluginRegistryTest, ADeviceNumberSelectsOneOfABackendsDevices) {
  PluginRegistry registry;
  Load(&registry, {"test_cpu", "two_gpus", "partial_gpu"});
  const PluginRecord* gpus = registry.FindByName("test-gpus");
  ASSERT_NE(gpus, nullptr);
  ASSERT_EQ(gpus->state, PluginState::kLoaded) << gpus->reason;
  ASSERT_EQ(gpus->backend.devices.size(), 2u);
  EXPECT_EQ(gpus->backend.devices[1].name, "second test GPU");
  EXPECT_EQ(gpus->backend.prefill_chunk, 384);

  auto second = registry.ChooseBackends("test-gpus:1");
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->accelerator, gpus);
  EXPECT_EQ(second->accelerator_device, 1);
  EXPECT_EQ(second->cpu->name, "test-cpu");
  EXPECT_EQ(second->Describe(), "test-gpus:1 (second test GPU), the rest on test-cpu");
  EXPECT_TRUE(SelectChosenDevice(*second).ok());
  auto plain = registry.ChooseBackends("test-gpus");
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(plain->accelerator_device, 0);

  auto past = registry.ChooseBackends("test-gpus:2");
  EXPECT_EQ(past.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(past.status().message(), HasSubstr("backend 'test-gpus' has 2 devices"));
  // A backend without a device list has its one device only.
  auto single = registry.ChooseBackends("test-gpu:1");
  EXPECT_EQ(single.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(single.status().message(), HasSubstr("test-gpu"));
  EXPECT_TRUE(registry.ChooseBackends("test-gpu:0").ok());
  for (const char* bad : {"test-gpus:x", "test-gpus:-1", "test-gpus:", "auto:1"}) {
    EXPECT_FALSE(registry.ChooseBackends(bad).ok()) << bad;
  }
}

TEST(PluginRegistryTest, AutoPassesASoftwareGpuOverAndSaysWhy) {
  PluginRegistry registry;
  Load(&registry, {"test_cpu", "soft_gpu"});
  auto chosen = registry.ChooseBackends("auto");
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  EXPECT_EQ(chosen->accelerator, nullptr);
  EXPECT_THAT(chosen->auto_note, HasSubstr("passed over test-soft-gpu (llvmpipe (software))"));
  EXPECT_EQ(registry.ChooseBackends("gpu")->accelerator->name, "test-soft-gpu");
  EXPECT_EQ(registry.ChooseBackends("test-soft-gpu")->accelerator->name, "test-soft-gpu");

  // With a real GPU as well, auto takes that one though it scores lower.
  Load(&registry, {"partial_gpu"});
  auto both = registry.ChooseBackends("auto");
  ASSERT_TRUE(both.ok()) << both.status();
  ASSERT_NE(both->accelerator, nullptr);
  EXPECT_EQ(both->accelerator->name, "test-gpu");
  EXPECT_EQ(both->auto_note, "");
}

TEST(PluginRegistryTest, AutoWithoutAGpuNamesTheDeclinedOnes) {
  PluginRegistry registry;
  Load(&registry, {"test_cpu", "declining"});
  auto chosen = registry.ChooseBackends("auto");
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  EXPECT_EQ(chosen->accelerator, nullptr);
  EXPECT_THAT(chosen->auto_note,
              HasSubstr("no usable GPU (declining: needs a device this machine does not have"));
  EXPECT_THAT(chosen->Describe(), HasSubstr("test-cpu ("));
}

}  // namespace
}  // namespace oxinfer
