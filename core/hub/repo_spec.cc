#include "core/hub/repo_spec.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"

namespace oxinfer::hub {
namespace {

bool IsNamePart(absl::string_view part) {
  if (part.empty() || part.front() == '.' || part.front() == '-' || part.back() == '.') {
    return false;
  }
  if (absl::StrContains(part, "--") || absl::StrContains(part, "..")) return false;
  for (const char c : part) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') {
      return false;
    }
  }
  return true;
}

bool IsRevision(absl::string_view rev) {
  if (rev.empty() || rev.size() > 255 || absl::StrContains(rev, "..")) return false;
  if (rev.front() == '/' || rev.back() == '/') return false;
  for (const char c : rev) {
    if (static_cast<unsigned char>(c) <= ' ' || c == '\\' || c == 0x7f) return false;
  }
  return true;
}

}  // namespace

std::optional<RepoSpec> ParseRepoSpec(absl::string_view text) {
  RepoSpec spec;
  const size_t at = text.find('@');
  absl::string_view id = text.substr(0, at);
  if (at != absl::string_view::npos) {
    const absl::string_view rev = text.substr(at + 1);
    if (!IsRevision(rev)) return std::nullopt;
    spec.revision = std::string(rev);
  }
  const size_t slash = id.find('/');
  if (slash == absl::string_view::npos || id.size() > 96) return std::nullopt;
  if (!IsNamePart(id.substr(0, slash)) || !IsNamePart(id.substr(slash + 1))) return std::nullopt;
  spec.repo_id = std::string(id);
  return spec;
}

bool IsCommitHash(absl::string_view revision) {
  if (revision.size() != 40) return false;
  for (const char c : revision) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c)) && (c < 'a' || c > 'f')) return false;
  }
  return true;
}

}  // namespace oxinfer::hub
