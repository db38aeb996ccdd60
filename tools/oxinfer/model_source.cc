#include "tools/oxinfer/model_source.h"

#include <sys/stat.h>

#include "absl/strings/str_format.h"
#include "core/hub/hub_settings.h"
#include "core/hub/model_fetch.h"
#include "core/hub/repo_spec.h"
#include "tools/oxinfer/progress_bar.h"

namespace oxinfer {

absl::StatusOr<std::string> ResolveModelSource(const std::string& model_flag,
                                               const std::string& cache_dir_flag) {
  struct stat st;
  if (model_flag.empty() || ::stat(model_flag.c_str(), &st) == 0) return model_flag;
  const std::optional<hub::RepoSpec> spec = hub::ParseRepoSpec(model_flag);
  if (!spec) return model_flag;  // the engine says what is wrong with the path
  absl::StatusOr<hub::HubSettings> settings = hub::HubSettingsFromEnvironment(cache_dir_flag);
  if (!settings.ok()) return settings.status();
  ProgressBar bar(absl::StrFormat("downloading %s", spec->repo_id));
  absl::StatusOr<std::string> dir =
      hub::FetchModel(*spec, *settings, [&](int64_t done, int64_t total, const std::string& file) {
        bar.Update(static_cast<double>(done), static_cast<double>(total), file, "B");
      });
  bar.Finish();
  return dir;
}

}  // namespace oxinfer
