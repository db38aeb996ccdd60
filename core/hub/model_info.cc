#include "core/hub/model_info.h"

#include <set>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "core/hub/repo_spec.h"
#include "core/json_util.h"

namespace oxinfer::hub {
namespace {

absl::Status Bad(const std::string& what) {
  return absl::InvalidArgumentError(absl::StrFormat("the Hub's model info: %s", what));
}

absl::StatusOr<int64_t> Size(const nlohmann::json& v, const std::string& where) {
  if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<uint64_t>() > INT64_MAX) ||
      v.get<int64_t>() < 0) {
    return Bad(absl::StrFormat("%s: expected a size in bytes", where));
  }
  return v.get<int64_t>();
}

}  // namespace

bool IsSafeRelativePath(absl::string_view path) {
  if (path.empty() || path.size() > 1024 || path.front() == '/') return false;
  for (const char c : path) {
    if (static_cast<unsigned char>(c) < 0x20 || c == '\\' || c == 0x7f) return false;
  }
  for (const absl::string_view part : absl::StrSplit(path, '/')) {
    if (part.empty() || part == "." || part == "..") return false;
  }
  return true;
}

absl::StatusOr<ModelInfo> ParseModelInfo(absl::string_view json) {
  absl::StatusOr<nlohmann::json> doc = ParseJsonStrict(std::string_view(json.data(), json.size()));
  if (!doc.ok()) return Bad(std::string(doc.status().message()));
  if (!doc->is_object()) return Bad("expected an object");
  ModelInfo info;
  const auto sha = doc->find("sha");
  if (sha == doc->end() || !sha->is_string() || !IsCommitHash(sha->get<std::string>())) {
    return Bad("'sha' is not a commit hash");
  }
  info.commit = sha->get<std::string>();
  const auto siblings = doc->find("siblings");
  if (siblings == doc->end() || !siblings->is_array()) return Bad("no 'siblings' array");
  std::set<std::string> seen;
  for (size_t i = 0; i < siblings->size(); ++i) {
    const nlohmann::json& s = (*siblings)[i];
    const std::string where = absl::StrFormat("siblings[%d]", i);
    if (!s.is_object()) return Bad(where + ": expected an object");
    const auto name = s.find("rfilename");
    if (name == s.end() || !name->is_string()) return Bad(where + ": no 'rfilename' string");
    RepoFile file;
    file.path = name->get<std::string>();
    if (!IsSafeRelativePath(file.path)) {
      return Bad(absl::StrFormat("%s: unsafe file name '%s'", where, file.path));
    }
    if (!seen.insert(file.path).second) {
      return Bad(absl::StrFormat("%s: '%s' listed twice", where, file.path));
    }
    if (const auto size = s.find("size"); size != s.end() && !size->is_null()) {
      absl::StatusOr<int64_t> n = Size(*size, where + ".size");
      if (!n.ok()) return n.status();
      file.size = *n;
    }
    if (const auto lfs = s.find("lfs"); lfs != s.end() && !lfs->is_null()) {
      if (!lfs->is_object()) return Bad(where + ".lfs: expected an object");
      const auto sha256 = lfs->find("sha256");
      if (sha256 == lfs->end() || !sha256->is_string() ||
          sha256->get_ref<const std::string&>().size() != 64) {
        return Bad(where + ".lfs.sha256: expected 64 hex digits");
      }
      file.lfs_sha256 = sha256->get<std::string>();
      if (const auto size = lfs->find("size"); size != lfs->end()) {
        absl::StatusOr<int64_t> n = Size(*size, where + ".lfs.size");
        if (!n.ok()) return n.status();
        file.size = *n;
      }
    }
    info.files.push_back(std::move(file));
  }
  return info;
}

}  // namespace oxinfer::hub
