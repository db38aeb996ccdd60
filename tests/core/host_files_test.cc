// The read_file / free_blob host services, through the table plugins get.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/host_services.h"
#include "core/mapped_file.h"
#include "core/safetensors_writer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace oxinfer {
namespace {

using ::testing::HasSubstr;

std::string TmpPath(const std::string& name) {
  const char* d = std::getenv("TEST_TMPDIR");
  return absl::StrCat(d != nullptr ? d : "/tmp", "/", name);
}

struct ReadResult {
  int32_t code = -1;
  std::string error;
  std::string data;
  bool nul_terminated = false;
};

ReadResult Read(const std::string& path, uint64_t max_bytes = 1 << 20) {
  const oxi_host_services* host = HostServices();
  oxi_blob blob = {};
  blob.struct_size = sizeof blob;
  char error[512] = {};
  ReadResult r;
  r.code = host->read_file(path.c_str(), max_bytes, &blob, error, sizeof error);
  r.error = error;
  if (r.code == OXI_OK) {
    r.data.assign(blob.data, blob.size);
    r.nul_terminated = blob.data[blob.size] == '\0';
    host->free_blob(&blob);
    EXPECT_EQ(blob.data, nullptr);
  } else {
    EXPECT_EQ(blob.data, nullptr);
    EXPECT_EQ(blob.size, 0u);
  }
  return r;
}

TEST(HostReadFileTest, ReadsARegularFileNulTerminated) {
  const std::string path = TmpPath("regular.txt");
  const std::string bytes = std::string("line one\nwith a \0 inside", 24);
  ASSERT_TRUE(WriteStringToFile(path, bytes).ok());
  ReadResult r = Read(path);
  ASSERT_EQ(r.code, OXI_OK) << r.error;
  EXPECT_EQ(r.data, bytes);
  EXPECT_TRUE(r.nul_terminated);
}

TEST(HostReadFileTest, ReadsAnEmptyFile) {
  const std::string path = TmpPath("empty.txt");
  ASSERT_TRUE(WriteStringToFile(path, "").ok());
  ReadResult r = Read(path);
  ASSERT_EQ(r.code, OXI_OK) << r.error;
  EXPECT_EQ(r.data, "");
  EXPECT_TRUE(r.nul_terminated);
}

TEST(HostReadFileTest, FollowsSymlinksToRegularFiles) {
  const std::string target = TmpPath("target.txt"), link = TmpPath("link.txt");
  ASSERT_TRUE(WriteStringToFile(target, "through a link").ok());
  unlink(link.c_str());
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  ReadResult r = Read(link);
  ASSERT_EQ(r.code, OXI_OK) << r.error;
  EXPECT_EQ(r.data, "through a link");
}

TEST(HostReadFileTest, MissingFileIsNotFoundNamingThePath) {
  const std::string path = TmpPath("does-not-exist.json");
  ReadResult r = Read(path);
  EXPECT_EQ(r.code, OXI_NOT_FOUND);
  EXPECT_THAT(r.error, HasSubstr(path));
  EXPECT_THAT(r.error, HasSubstr("No such file"));
}

TEST(HostReadFileTest, RefusesADirectory) {
  ReadResult r = Read(TmpPath(""));
  EXPECT_EQ(r.code, OXI_INVALID_ARGUMENT);
  EXPECT_THAT(r.error, HasSubstr("a directory, not a regular file"));
}

// A FIFO without a writer would block open() and read() forever: it must be
// refused at once (a hang fails the test by its timeout).
TEST(HostReadFileTest, RefusesAFifoWithoutBlocking) {
  const std::string path = TmpPath("fifo");
  unlink(path.c_str());
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  ReadResult r = Read(path);
  EXPECT_EQ(r.code, OXI_INVALID_ARGUMENT);
  EXPECT_THAT(r.error, HasSubstr(path));
  EXPECT_THAT(r.error, HasSubstr("FIFO"));
  // And a symlink to it.
  const std::string link = TmpPath("fifo-link");
  unlink(link.c_str());
  ASSERT_EQ(symlink(path.c_str(), link.c_str()), 0);
  EXPECT_EQ(Read(link).code, OXI_INVALID_ARGUMENT);
  // The core's own readers share the check.
  EXPECT_EQ(ReadFileToString(path).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MappedFile::Open(path, LoadMode::kRead).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// /dev/zero never ends: reading it "whole" would never return.
TEST(HostReadFileTest, RefusesDevicesAndSymlinksToThem) {
  ReadResult r = Read("/dev/zero");
  EXPECT_EQ(r.code, OXI_INVALID_ARGUMENT);
  EXPECT_THAT(r.error, HasSubstr("/dev/zero"));
  EXPECT_THAT(r.error, HasSubstr("character device"));
  const std::string link = TmpPath("zero-link");
  unlink(link.c_str());
  ASSERT_EQ(symlink("/dev/zero", link.c_str()), 0);
  ReadResult l = Read(link);
  EXPECT_EQ(l.code, OXI_INVALID_ARGUMENT);
  EXPECT_THAT(l.error, HasSubstr("character device"));
}

TEST(HostReadFileTest, RefusesAFileLargerThanTheLimit) {
  const std::string path = TmpPath("hundred.bin");
  ASSERT_TRUE(WriteStringToFile(path, std::string(100, 'x')).ok());
  EXPECT_EQ(Read(path, 100).code, OXI_OK);
  ReadResult r = Read(path, 99);
  EXPECT_EQ(r.code, OXI_RESOURCE_EXHAUSTED);
  EXPECT_THAT(r.error, HasSubstr(path));
  EXPECT_THAT(r.error, HasSubstr("100 bytes, more than the limit of 99"));
}

TEST(HostReadFileTest, RefusesMissingArguments) {
  const oxi_host_services* host = HostServices();
  char error[128] = {};
  oxi_blob blob = {sizeof(oxi_blob), nullptr, 0};
  EXPECT_EQ(host->read_file(nullptr, 10, &blob, error, sizeof error), OXI_INVALID_ARGUMENT);
  EXPECT_THAT(error, HasSubstr("no path"));
  EXPECT_EQ(host->read_file("/etc/hostname", 10, nullptr, error, sizeof error),
            OXI_INVALID_ARGUMENT);
  // No error buffer at all: still a code, no crash.
  EXPECT_EQ(host->read_file("/nonexistent", 10, &blob, nullptr, 0), OXI_NOT_FOUND);
  host->free_blob(nullptr);
  host->free_blob(&blob);
}

TEST(HostReadFileTest, TruncatesTheMessageToTheBuffer) {
  char error[8];
  std::memset(error, 'z', sizeof error);
  oxi_blob blob = {sizeof(oxi_blob), nullptr, 0};
  EXPECT_EQ(HostServices()->read_file("/nonexistent", 10, &blob, error, sizeof error),
            OXI_NOT_FOUND);
  EXPECT_EQ(std::strlen(error), 7u);
}

TEST(HostServicesTest, TableIsAbi2WithEveryEntry) {
  const oxi_host_services* host = HostServices();
  EXPECT_EQ(host->struct_size, sizeof(oxi_host_services));
  EXPECT_EQ(host->abi_major, 2u);
  EXPECT_EQ(host->abi_minor, static_cast<uint32_t>(OXI_ABI_MINOR));
  EXPECT_NE(host->host_version, nullptr);
  EXPECT_NE(host->log, nullptr);
  EXPECT_NE(host->parallel_for, nullptr);
  EXPECT_NE(host->num_threads, nullptr);
  EXPECT_NE(host->cpu_features, nullptr);
  EXPECT_NE(host->aligned_alloc, nullptr);
  EXPECT_NE(host->aligned_free, nullptr);
  EXPECT_NE(host->read_file, nullptr);
  EXPECT_NE(host->free_blob, nullptr);
  EXPECT_NE(host->json_parse, nullptr);
  EXPECT_NE(host->json_free, nullptr);
  EXPECT_NE(host->weights_open, nullptr);
  EXPECT_NE(host->weights_release, nullptr);
  EXPECT_NE(host->weights_close, nullptr);
  EXPECT_GE(host->num_threads(), 1);
}

TEST(HostServicesTest, AlignedAllocIs64ByteAlignedAndRefusesOverflow) {
  const oxi_host_services* host = HostServices();
  void* p = host->aligned_alloc(100);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  std::memset(p, 1, 100);
  host->aligned_free(p);
  EXPECT_EQ(host->aligned_alloc(SIZE_MAX - 1), nullptr);
}

}  // namespace
}  // namespace oxinfer
