// One file of a repository into the cache: its metadata from a HEAD on the
// resolve endpoint (ETag / X-Linked-Etag, size, the CDN's address), then the
// bytes into blobs/ETAG.incomplete under the blob's lock, resumed with Range
// after a cut or a killed process, verified (sha256 for LFS files, else the
// size) and only then renamed to blobs/ETAG and linked into the snapshot.
#ifndef OXINFER_CORE_HUB_FILE_FETCH_H_
#define OXINFER_CORE_HUB_FILE_FETCH_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "core/hub/http_client.h"
#include "core/hub/hub_settings.h"
#include "core/hub/model_info.h"
#include "core/hub/repo_cache.h"
#include "core/hub/repo_spec.h"

namespace oxinfer::hub {

// Bytes of the file now held (may go down when a download restarts).
using BytesDelta = std::function<void(int64_t delta)>;

// Makes snapshots/COMMIT/FILE of `spec` present and whole.
absl::Status FetchFile(HttpClient& http, const HubSettings& settings, const RepoCache& cache,
                       const RepoSpec& spec, const std::string& commit, const RepoFile& file,
                       const BytesDelta& on_bytes);

}  // namespace oxinfer::hub

#endif  // OXINFER_CORE_HUB_FILE_FETCH_H_
