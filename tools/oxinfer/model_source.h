// What --model names: a local folder or file as it is, or a Hugging Face Hub
// repository (ORG/NAME[@REVISION]) fetched into the shared cache first, with
// a download progress bar on a terminal.
#ifndef OXINFER_TOOLS_OXINFER_MODEL_SOURCE_H_
#define OXINFER_TOOLS_OXINFER_MODEL_SOURCE_H_

#include <string>

#include "absl/status/statusor.h"

namespace oxinfer {

// The local path to open for `model_flag`; an existing path wins over a
// repository of the same spelling. `cache_dir_flag` is --cache-dir.
absl::StatusOr<std::string> ResolveModelSource(const std::string& model_flag,
                                               const std::string& cache_dir_flag);

}  // namespace oxinfer

#endif  // OXINFER_TOOLS_OXINFER_MODEL_SOURCE_H_
