// ../shared/data beside the source tree: test data kept outside the
// repository (the real chat templates), found from the real path of a
// committed runfile (a symlink into the source tree) or OXINFER_SHARED_DIR.
#ifndef OXINFER_TESTS_SUPPORT_SHARED_DATA_H_
#define OXINFER_TESTS_SUPPORT_SHARED_DATA_H_

#include <string>

namespace oxinfer::testing {

// The data folder ("" when absent; tests then skip), walking up from
// `committed_runfile`.
std::string FindSharedData(const std::string& committed_runfile);

// A whole file ("" when it cannot be read).
std::string ReadWholeFile(const std::string& path);

}  // namespace oxinfer::testing

#endif  // OXINFER_TESTS_SUPPORT_SHARED_DATA_H_
