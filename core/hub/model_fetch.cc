#include "core/hub/model_fetch.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/hub/file_fetch.h"
#include "core/hub/file_selection.h"
#include "core/hub/http_client.h"
#include "core/hub/hub_errors.h"
#include "core/hub/model_info.h"
#include "core/hub/repo_cache.h"
#include "core/hub/retrier.h"

namespace oxinfer::hub {
namespace {

std::string Name(const RepoSpec& spec) { return absl::StrCat(spec.repo_id, "@", spec.revision); }

// A snapshot the cache holds for `spec`, if it has a model's config.
absl::StatusOr<std::string> CachedSnapshot(const RepoSpec& spec, const RepoCache& cache) {
  absl::StatusOr<std::string> commit = cache.CachedCommit(spec.revision);
  if (!commit.ok()) return commit.status();
  const std::string dir = cache.SnapshotDir(*commit);
  if (!IsRegularFile(dir + "/config.json") && !IsRegularFile(dir + "/model_index.json")) {
    return absl::NotFoundError(absl::StrFormat("%s holds no config.json", dir));
  }
  return dir;
}

absl::StatusOr<ModelInfo> GetModelInfo(HttpClient& http, const HubSettings& settings,
                                       const RepoSpec& spec) {
  Retrier retry(settings);
  while (true) {
    HttpRequest request;
    request.url = absl::StrCat(settings.endpoint, "/api/models/", spec.repo_id, "/revision/",
                               EscapeUrlSegment(spec.revision), "?blobs=true");
    request.headers = AuthHeaders(settings);
    request.connect_timeout_s = settings.connect_timeout_s;
    request.stall_timeout_s = settings.stall_timeout_s;
    absl::StatusOr<HttpResponse> r = http.Send(request);
    if (!r.ok()) {
      if (absl::IsUnavailable(r.status()) && retry.Again()) continue;
      return r.status();
    }
    if (r->status == 429 || r->status >= 500) {
      if (retry.Again(r->status == 429 ? RetryAfterSeconds(*r) : -1)) continue;
    }
    if (r->status != 200) return HubHttpError(*r, settings, spec, "");
    absl::StatusOr<ModelInfo> info = ParseModelInfo(r->body);
    if (!info.ok()) {
      return absl::Status(info.status().code(),
                          absl::StrFormat("%s: %s", Name(spec), info.status().message()));
    }
    return info;
  }
}

// Downloads `files` with up to settings.parallel_downloads threads; the first
// error stops what has not started.
absl::Status FetchAll(const HubSettings& settings, const RepoCache& cache, const RepoSpec& spec,
                      const std::string& commit, const std::vector<RepoFile>& files,
                      const FetchProgress& progress) {
  int64_t total = 0;
  for (const RepoFile& f : files) total += std::max<int64_t>(0, f.size);
  std::atomic<size_t> next{0};
  std::mutex mu;
  int64_t done = 0;
  absl::Status first_error;
  auto work = [&] {
    HttpClient http;
    while (true) {
      {
        std::lock_guard<std::mutex> lock(mu);
        if (!first_error.ok()) return;
      }
      const size_t i = next++;
      if (i >= files.size()) return;
      const RepoFile& file = files[i];
      const absl::Status s =
          FetchFile(http, settings, cache, spec, commit, file, [&](int64_t delta) {
            std::lock_guard<std::mutex> lock(mu);
            done += delta;
            if (progress) progress(done, std::max(total, done), file.path);
          });
      if (!s.ok()) {
        std::lock_guard<std::mutex> lock(mu);
        if (first_error.ok()) first_error = s;
      }
    }
  };
  const int n = std::max(1, std::min<int>(settings.parallel_downloads, files.size()));
  std::vector<std::thread> threads;
  for (int t = 1; t < n; ++t) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  return first_error;
}

}  // namespace

absl::StatusOr<std::string> FetchModel(const RepoSpec& spec, const HubSettings& settings,
                                       const FetchProgress& progress) {
  const RepoCache cache(settings.cache_dir, spec.repo_id);
  if (settings.offline) {
    absl::StatusOr<std::string> dir = CachedSnapshot(spec, cache);
    if (dir.ok()) return dir;
    return absl::NotFoundError(
        absl::StrFormat("%s is not in the Hub cache %s and HF_HUB_OFFLINE is set; run once without "
                        "HF_HUB_OFFLINE to download it (%s)",
                        Name(spec), settings.cache_dir, dir.status().message()));
  }
  HttpClient http;
  absl::StatusOr<ModelInfo> info = GetModelInfo(http, settings, spec);
  if (!info.ok()) {
    // The Hub out of reach: what the cache holds serves, as huggingface_hub does.
    if (absl::IsUnavailable(info.status())) {
      absl::StatusOr<std::string> dir = CachedSnapshot(spec, cache);
      if (dir.ok()) return dir;
    }
    return info.status();
  }
  const std::vector<RepoFile> wanted = SelectModelFiles(info->files);
  if (wanted.empty()) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s has neither config.json nor model_index.json at its top level: not a transformers "
        "or diffusers model",
        Name(spec)));
  }
  absl::Status s = MakeDirectories(cache.root());
  if (s.ok() && spec.revision != info->commit) s = cache.WriteRef(spec.revision, info->commit);
  if (!s.ok()) return s;
  std::vector<RepoFile> missing;
  for (const RepoFile& f : wanted) {
    // A snapshot's files are immutable and only linked once whole.
    if (!IsRegularFile(cache.SnapshotFile(info->commit, f.path))) missing.push_back(f);
  }
  s = FetchAll(settings, cache, spec, info->commit, missing, progress);
  if (!s.ok()) return s;
  return cache.SnapshotDir(info->commit);
}

}  // namespace oxinfer::hub
