// `--model ORG/NAME[@REV]`: the local folder holding what the model plugin
// needs from that Hub repository, downloaded into the shared cache when it is
// not there yet (several files at once), or found in the cache alone when
// HF_HUB_OFFLINE is set or the Hub cannot be reached.
#ifndef OXINFER_CORE_HUB_MODEL_FETCH_H_
#define OXINFER_CORE_HUB_MODEL_FETCH_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "core/hub/hub_settings.h"
#include "core/hub/repo_spec.h"

namespace oxinfer::hub {

// Bytes held of the bytes needed, and the file last progressing; called from
// the download threads, one at a time.
using FetchProgress = std::function<void(int64_t done, int64_t total, const std::string& file)>;

// The snapshot folder (CACHE/models--ORG--NAME/snapshots/COMMIT).
absl::StatusOr<std::string> FetchModel(const RepoSpec& spec, const HubSettings& settings,
                                       const FetchProgress& progress = nullptr);

}  // namespace oxinfer::hub

#endif  // OXINFER_CORE_HUB_MODEL_FETCH_H_
