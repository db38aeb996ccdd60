// Whether every plugin of a backend spec ("a.so" or "accel.so+cpu.so") runs
// on this machine, as the registry sees it: exit 0 and the plugins' names
// when all load; 3 and the reason when one declines (score 0: an ISA, driver
// or device this machine lacks); 1 when one is broken (not a plugin, wrong
// ABI, not a backend). tests/support/run_on_backend.sh turns 3 into a skip.
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/plugin_registry.h"
#include "oxinfer/plugin_abi.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <plugin.so>[+<plugin.so>]\n", argv[0]);
    return 1;
  }
  oxinfer::PluginRegistry registry;
  std::vector<std::string> names;
  for (const std::string& path : std::vector<std::string>(absl::StrSplit(argv[1], '+'))) {
    const absl::Status s = registry.LoadFile(path);
    const oxinfer::PluginRecord& r = registry.plugins().back();
    if (r.state == oxinfer::PluginState::kDeclined) {
      std::printf("%s (%s) declined here: %s\n", r.name.c_str(), path.c_str(), r.reason.c_str());
      return 3;
    }
    if (!s.ok()) {
      std::printf("%s\n", std::string(s.message()).c_str());
      return 1;
    }
    if (r.kind != OXI_PLUGIN_BACKEND) {
      std::printf("%s: a %s plugin, not a backend\n", path.c_str(),
                  oxinfer::PluginKindName(r.kind));
      return 1;
    }
    names.push_back(r.name);
  }
  std::printf("%s\n", absl::StrJoin(names, "+").c_str());
  return 0;
}
