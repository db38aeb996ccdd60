// A Hugging Face Hub model named on the command line: "ORG/NAME" or
// "ORG/NAME@REVISION" (a branch, a tag or a commit hash; "main" by default).
#ifndef OXINFER_CORE_HUB_REPO_SPEC_H_
#define OXINFER_CORE_HUB_REPO_SPEC_H_

#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace oxinfer::hub {

struct RepoSpec {
  std::string repo_id;            // "ORG/NAME"
  std::string revision = "main";  // as given
};

// The spec `text` names, or nullopt when it cannot be a repository id (the
// Hub's rules: two parts of letters, digits, '.', '_', '-', neither starting
// with '.' or '-', no "--" or "..", at most 96 characters; a revision without
// spaces or "..").
std::optional<RepoSpec> ParseRepoSpec(absl::string_view text);

// A full 40-digit commit hash, which the cache's snapshots are named by.
bool IsCommitHash(absl::string_view revision);

}  // namespace oxinfer::hub

#endif  // OXINFER_CORE_HUB_REPO_SPEC_H_
