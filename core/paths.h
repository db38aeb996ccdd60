// Where this process's files are: the executable's folder, from which the
// host finds its plugins (../lib/oxinfer/plugins) and its default model
// (../share/oxinfer/default_model).
#ifndef OXINFER_CORE_PATHS_H_
#define OXINFER_CORE_PATHS_H_

#include <string>

namespace oxinfer {

// The folder of the running executable ("" when it cannot be told).
std::string ExecutableDir();

// The folder of the model run when --model is not given, or "" when the
// installation has none.
std::string DefaultModelDir();

bool IsDirectory(const std::string& path);

}  // namespace oxinfer

#endif  // OXINFER_CORE_PATHS_H_
