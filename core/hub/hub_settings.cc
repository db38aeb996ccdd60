#include "core/hub/hub_settings.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"

namespace oxinfer::hub {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

bool EnvTrue(const char* name) {
  const std::string v = absl::AsciiStrToLower(absl::StripAsciiWhitespace(Env(name)));
  return v == "1" || v == "true" || v == "yes" || v == "on";
}

std::string ExpandHome(const std::string& path) {
  if (path == "~" || absl::StartsWith(path, "~/")) return Env("HOME") + path.substr(1);
  return path;
}

absl::StatusOr<std::string> HfHome() {
  if (!Env("HF_HOME").empty()) return ExpandHome(Env("HF_HOME"));
  if (!Env("XDG_CACHE_HOME").empty()) return ExpandHome(Env("XDG_CACHE_HOME")) + "/huggingface";
  if (Env("HOME").empty()) {
    return absl::FailedPreconditionError(
        "neither HOME nor HF_HOME is set: no Hub cache folder (give --cache-dir)");
  }
  return Env("HOME") + "/.cache/huggingface";
}

// The first line of the token file, if there is one.
std::string ReadTokenFile(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return "";
  return std::string(absl::StripAsciiWhitespace(line));
}

}  // namespace

absl::StatusOr<HubSettings> HubSettingsFromEnvironment(const std::string& cache_dir_flag) {
  HubSettings s;
  const absl::StatusOr<std::string> home = HfHome();
  if (!cache_dir_flag.empty()) {
    s.cache_dir = ExpandHome(cache_dir_flag);
  } else if (!Env("OXINFER_CACHE").empty()) {
    s.cache_dir = ExpandHome(Env("OXINFER_CACHE"));
  } else if (!Env("HF_HUB_CACHE").empty()) {
    s.cache_dir = ExpandHome(Env("HF_HUB_CACHE"));
  } else {
    if (!home.ok()) return home.status();
    s.cache_dir = *home + "/hub";
  }
  std::string endpoint = std::string(absl::StripAsciiWhitespace(Env("HF_ENDPOINT")));
  while (absl::EndsWith(endpoint, "/")) endpoint.pop_back();
  if (!endpoint.empty()) {
    if (!absl::StartsWith(endpoint, "https://") && !absl::StartsWith(endpoint, "http://")) {
      return absl::InvalidArgumentError(
          absl::StrFormat("HF_ENDPOINT=%s: expected an http:// or https:// address", endpoint));
    }
    s.endpoint = endpoint;
  }
  s.offline = EnvTrue("HF_HUB_OFFLINE");
  s.token = std::string(absl::StripAsciiWhitespace(Env("HF_TOKEN")));
  if (!s.token.empty()) {
    s.token_source = "HF_TOKEN";
  } else {
    std::string path = ExpandHome(Env("HF_TOKEN_PATH"));
    if (path.empty() && home.ok()) path = *home + "/token";
    if (!path.empty()) {
      s.token = ReadTokenFile(path);
      if (!s.token.empty()) s.token_source = path;
    }
  }
  return s;
}

}  // namespace oxinfer::hub
