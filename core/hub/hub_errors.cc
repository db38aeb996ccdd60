#include "core/hub/hub_errors.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace oxinfer::hub {
namespace {

// The Hub's own explanation, if short and printable.
std::string HubMessage(const HttpResponse& response) {
  std::string m = response.Header("x-error-message");
  if (m.empty()) return "";
  if (m.size() > 300) m = m.substr(0, 300) + "...";
  return absl::StrCat(" (the Hub says: ", m, ")");
}

}  // namespace

std::vector<std::string> AuthHeaders(const HubSettings& settings) {
  if (settings.token.empty()) return {};
  return {absl::StrCat("Authorization: Bearer ", settings.token)};
}

double RetryAfterSeconds(const HttpResponse& response) {
  double seconds = 0;
  const std::string v(absl::StripAsciiWhitespace(response.Header("retry-after")));
  if (v.empty() || !absl::SimpleAtod(v, &seconds) || seconds < 0) return -1;
  return seconds;
}

absl::Status HubHttpError(const HttpResponse& response, const HubSettings& settings,
                          const RepoSpec& spec, absl::string_view file) {
  const std::string code = response.Header("x-error-code");
  const std::string what =
      file.empty() ? spec.repo_id : absl::StrFormat("%s@%s: %s", spec.repo_id, spec.revision, file);
  const std::string hub = HubMessage(response);
  const long status = response.status;
  if (status == 401 || status == 403) {
    const std::string token =
        settings.token.empty()
            ? "set HF_TOKEN to a token with read access (or run `huggingface-cli login`)"
            : absl::StrFormat(
                  "the token from %s was refused; set HF_TOKEN to a token with "
                  "read access to it",
                  settings.token_source);
    return absl::PermissionDeniedError(absl::StrFormat(
        "%s: access denied (HTTP %d): the repository %s is gated or private. Accept its "
        "conditions at %s/%s while logged in, then %s%s",
        what, status, spec.repo_id, settings.endpoint, spec.repo_id, token, hub));
  }
  if (status == 404) {
    if (code == "RevisionNotFound") {
      return absl::NotFoundError(absl::StrFormat("%s: no revision '%s' (a branch, tag or commit)%s",
                                                 spec.repo_id, spec.revision, hub));
    }
    if (code == "EntryNotFound" || (!file.empty() && code != "RepoNotFound")) {
      return absl::NotFoundError(
          absl::StrFormat("%s@%s has no file '%s'%s", spec.repo_id, spec.revision, file, hub));
    }
    return absl::NotFoundError(absl::StrFormat(
        "%s: no such repository on %s (nor a local folder of that name); if it is private, "
        "set HF_TOKEN%s",
        spec.repo_id, settings.endpoint, hub));
  }
  if (status == 416) {
    return absl::OutOfRangeError(
        absl::StrFormat("%s: the Hub refused the byte range asked (HTTP 416)%s", what, hub));
  }
  if (status == 429) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "%s: rate-limited by the Hub (HTTP 429, retry after %s s); try again later or set "
        "HF_TOKEN%s",
        what, response.Header("retry-after").empty() ? "?" : response.Header("retry-after"), hub));
  }
  const std::string text =
      absl::StrFormat("%s: HTTP %d from %s%s", what, status, settings.endpoint, hub);
  return status >= 500 ? absl::UnavailableError(text) : absl::FailedPreconditionError(text);
}

}  // namespace oxinfer::hub
