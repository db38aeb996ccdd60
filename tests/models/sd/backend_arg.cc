#include "tests/models/sd/backend_arg.h"

#include <cstdio>
#include <memory>

#include "core/host_services.h"
#include "oxinfer/sdk/common.hpp"
#include "tests/support/test_backends.h"

namespace oxinfer {
namespace sd {
namespace testing {
namespace {

std::unique_ptr<oxinfer::testing::TestBackend>& Slot() {
  static auto* backend = new std::unique_ptr<oxinfer::testing::TestBackend>();
  return *backend;
}

}  // namespace

int InitBackendFromArgs(int argc, char** argv) {
  sdk::HostSlot() = HostServices();
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s BACKEND_SPEC (<cpu .so> or <accel .so>+<cpu .so>)\n", argv[0]);
    return 1;
  }
  const std::string spec = argv[1];
  // A variant for an ISA this CPU lacks is declined by its score: nothing to test here.
  const uint64_t have = HostServices()->cpu_features();
  if (spec.find("avx512") != std::string::npos && (have & OXI_CPU_X86_64_V4) != OXI_CPU_X86_64_V4) {
    std::printf("skipped: this CPU lacks AVX-512 (%s)\n", spec.c_str());
    return -1;
  }
  auto backend = oxinfer::testing::OpenTestBackend(spec);
  if (!backend.ok()) {
    std::fprintf(stderr, "backend %s: %s\n", spec.c_str(),
                 std::string(backend.status().message()).c_str());
    return 1;
  }
  Slot() = *std::move(backend);
  std::printf("backend: %s (%s)\n", Slot()->name().c_str(), spec.c_str());
  return 0;
}

const oxi_backend_iface* TestBackendIface() { return Slot() ? Slot()->iface() : nullptr; }

const std::string& TestBackendName() {
  static const std::string none = "none";
  static std::string name;
  if (!Slot()) return none;
  name = Slot()->name();
  return name;
}

}  // namespace testing
}  // namespace sd
}  // namespace oxinfer
