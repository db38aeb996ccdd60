#include "tools/oxinfer/serve_command.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/paths.h"

namespace oxinfer {

int ExecServer(int argc, char** argv) {
  const std::string dir = ExecutableDir();
  const std::string candidates[] = {dir + "/oxinfer-server", dir + "/../server/oxinfer-server"};
  for (const std::string& path : candidates) {
    if (access(path.c_str(), X_OK) != 0) continue;
    std::vector<char*> args;
    args.push_back(const_cast<char*>(path.c_str()));
    for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
    args.push_back(nullptr);
    execv(path.c_str(), args.data());
    std::fprintf(stderr, "oxinfer serve: cannot run %s: %s\n", path.c_str(), std::strerror(errno));
    return 1;
  }
  std::fprintf(stderr,
               "oxinfer serve: oxinfer-server is not installed next to oxinfer (%s); build "
               "//tools/server:oxinfer-server or //:dist\n",
               dir.c_str());
  return 1;
}

}  // namespace oxinfer
