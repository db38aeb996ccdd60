// libFuzzer entry point for the Hub's model-info parser and file selection.
#include "fuzz/hub_model_info_fuzzer.h"

#include <set>
#include <string>

#include "absl/strings/string_view.h"
#include "core/hub/file_selection.h"
#include "core/hub/model_info.h"
#include "core/hub/repo_spec.h"

namespace oxinfer {
namespace {

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

}  // namespace

absl::Status ParseHubModelInfoFuzzInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<hub::ModelInfo> info = hub::ParseModelInfo(text);
  if (!info.ok()) return info.status();
  Check(hub::IsCommitHash(info->commit));
  std::set<std::string> paths;
  for (const hub::RepoFile& f : info->files) {
    Check(hub::IsSafeRelativePath(f.path));
    Check(f.path.front() != '/' && f.path.find("//") == std::string::npos);
    Check(paths.insert(f.path).second);
    Check(f.size >= -1);
    Check(f.lfs_sha256.empty() || f.lfs_sha256.size() == 64);
  }
  for (const hub::RepoFile& f : hub::SelectModelFiles(info->files)) Check(paths.count(f.path) > 0);
  return absl::OkStatus();
}

}  // namespace oxinfer

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)oxinfer::ParseHubModelInfoFuzzInput(data, size);
  return 0;
}
