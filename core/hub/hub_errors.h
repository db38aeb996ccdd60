// What the user reads when the Hub says no: the repository, the revision or
// the file it is about, and what to do (a token for a gated repository).
#ifndef OXINFER_CORE_HUB_HUB_ERRORS_H_
#define OXINFER_CORE_HUB_HUB_ERRORS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/hub/http_client.h"
#include "core/hub/hub_settings.h"
#include "core/hub/repo_spec.h"

namespace oxinfer::hub {

// An error for an HTTP answer >= 400 (or an unexpected one). `file` is ""
// for the model-info request. 401/403: PERMISSION_DENIED naming the
// repository and HF_TOKEN; 404: NOT_FOUND for the repository, the revision or
// the file (the Hub's X-Error-Code tells which); 416: OUT_OF_RANGE; 429:
// RESOURCE_EXHAUSTED; others: UNAVAILABLE (5xx) or FAILED_PRECONDITION.
absl::Status HubHttpError(const HttpResponse& response, const HubSettings& settings,
                          const RepoSpec& spec, absl::string_view file);

// The "Authorization: Bearer" header when a token is set.
std::vector<std::string> AuthHeaders(const HubSettings& settings);

// Seconds from a Retry-After header (delta-seconds form), or -1.
double RetryAfterSeconds(const HttpResponse& response);

}  // namespace oxinfer::hub

#endif  // OXINFER_CORE_HUB_HUB_ERRORS_H_
