// Where the Hub is, who we are to it and where its files are kept: the
// environment variables huggingface_hub reads, so that both share one cache.
#ifndef OXINFER_CORE_HUB_HUB_SETTINGS_H_
#define OXINFER_CORE_HUB_HUB_SETTINGS_H_

#include <string>

#include "absl/status/statusor.h"

namespace oxinfer::hub {

struct HubSettings {
  std::string endpoint = "https://huggingface.co";  // no trailing '/'
  std::string token;                                // "" for none
  std::string token_source;                         // "HF_TOKEN", a file's path...
  std::string cache_dir;                            // the folder holding models--ORG--NAME
  bool offline = false;                             // the cache alone, no request at all
  int parallel_downloads = 4;
  // Transient failures (a cut connection, 5xx, 429, a stall) are retried,
  // resuming where the file stopped, up to this many attempts per request.
  int max_attempts = 8;
  double retry_delay_s = 1.0;        // the first wait; doubled each time, at most 30 s
  double max_retry_after_s = 300.0;  // a longer 429 Retry-After fails instead of waiting
  long stall_timeout_s = 60;         // no byte for this long fails the attempt
  long connect_timeout_s = 20;
};

// The settings from the environment, as huggingface_hub reads it:
//   cache: `cache_dir_flag`, else OXINFER_CACHE, else HF_HUB_CACHE, else
//     $HF_HOME/hub (HF_HOME: $XDG_CACHE_HOME/huggingface or
//     ~/.cache/huggingface);
//   endpoint: HF_ENDPOINT; offline: HF_HUB_OFFLINE=1 (or true/yes/on);
//   token: HF_TOKEN, else the file $HF_TOKEN_PATH or $HF_HOME/token that
//     `huggingface-cli login` writes.
absl::StatusOr<HubSettings> HubSettingsFromEnvironment(const std::string& cache_dir_flag);

}  // namespace oxinfer::hub

#endif  // OXINFER_CORE_HUB_HUB_SETTINGS_H_
