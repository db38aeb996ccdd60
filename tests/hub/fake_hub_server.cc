// The loopback Hub as a process, for the CLI's end-to-end test:
//   fake_hub_server PORT_FILE LIFETIME_S ORG/NAME=DIR...
// serves each DIR as the repository ORG/NAME (*.safetensors as LFS files, on
// the CDN), writes the Hub's address into PORT_FILE and exits after
// LIFETIME_S seconds at the latest, so a test that dies cannot leave it
// running. Each download is logged on stderr; FAKE_HUB_SLOW=1 sends every
// file 1 KiB at a time, 20 ms apart.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "tests/hub/fake_hub.h"

namespace {

using oxinfer::hub::testing::FakeFile;
using oxinfer::hub::testing::FakeHub;

void Walk(const std::string& root, const std::string& rel, std::vector<FakeFile>* out) {
  DIR* d = ::opendir((root + "/" + rel).c_str());
  if (d == nullptr) return;
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    const std::string path = rel.empty() ? name : rel + "/" + name;
    struct stat st;
    if (::stat((root + "/" + path).c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      Walk(root, path, out);
      continue;
    }
    std::ifstream in(root + "/" + path, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    out->push_back({path, bytes.str(), absl::EndsWith(name, ".safetensors")});
  }
  ::closedir(d);
}

}  // namespace

int main(int argc, char** argv) {
  int lifetime = 0;
  if (argc < 4 || !absl::SimpleAtoi(argv[2], &lifetime)) {
    std::fprintf(stderr, "usage: %s PORT_FILE LIFETIME_S ORG/NAME=DIR...\n", argv[0]);
    return 2;
  }
  FakeHub hub;
  oxinfer::hub::testing::Faults faults;
  faults.log = true;
  const bool slow = std::getenv("FAKE_HUB_SLOW") != nullptr;
  for (int i = 3; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t eq = arg.find('=');
    if (eq == std::string::npos) return 2;
    std::vector<FakeFile> files;
    Walk(arg.substr(eq + 1), "", &files);
    const std::string repo = arg.substr(0, eq);
    for (const FakeFile& f : files) {
      if (slow) faults.slow.insert(f.path);
    }
    hub.AddRepo(repo, FakeHub::GitBlobId(repo), files);
  }
  hub.SetFaults(faults);
  const std::string port_file = argv[1];
  { std::ofstream(port_file + ".tmp") << hub.endpoint() << "\n"; }
  std::rename((port_file + ".tmp").c_str(), port_file.c_str());
  std::this_thread::sleep_for(std::chrono::seconds(lifetime));
  return 0;
}
