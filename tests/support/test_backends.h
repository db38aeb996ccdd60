// Test support: plugins loaded through the real registry, and the backend a
// model test runs on, described by a spec on the test's command line:
//   "<dir>/liboxinfer_cpu_avx2.so"                        one complete backend
//   "<dir>/liboxinfer_arena.so+<dir>/liboxinfer_cpu_scalar.so"
//        an accelerator (partial) composed with the CPU fallback, as the host
//        composes them (core/backend_dispatch.h)
// In a BUILD file, the restricted test accelerator is
// //tests/backends:liboxinfer_arena.so (matmul on float weights and rms_norm
// only, its own memory, no host pointers):
//   args = ["$(rootpath //tests/backends:liboxinfer_arena.so)+" +
//           "$(rootpath //plugins/backends/cpu:liboxinfer_cpu_avx2.so)"],
// and OXINFER_BACKEND_CHECK=1 in the test's env checks its ops on the CPU.
#ifndef OXINFER_TESTS_SUPPORT_TEST_BACKENDS_H_
#define OXINFER_TESTS_SUPPORT_TEST_BACKENDS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "core/backend_dispatch.h"
#include "core/plugin_registry.h"
#include "oxinfer/plugin_abi.h"

namespace oxinfer {
namespace testing {

// $TEST_SRCDIR/$TEST_WORKSPACE/<rel> under `bazel test`, else rel.
std::string Runfile(const std::string& rel);

// The process's registry for tests (plugins stay loaded until exit).
PluginRegistry& TestRegistry();

// The interface of the plugin at `path` (loaded once), checked to be of `kind`.
absl::StatusOr<const void*> LoadPluginIface(const std::string& path, int32_t kind);

// The model interface of a model plugin file.
absl::StatusOr<const oxi_model_iface*> LoadModelPlugin(const std::string& path);

class TestBackend {
 public:
  virtual ~TestBackend() = default;
  // The table a model plugin is opened with.
  virtual const oxi_backend_iface* iface() const = 0;
  // A short name for test output ("cpu_avx2", "arena+cpu_scalar").
  virtual std::string name() const = 0;
  // The composition behind a "<accel>+<cpu>" spec (its profile and check
  // reports); null for a single backend.
  virtual ComposedBackend* composed() const { return nullptr; }
};

// Opens the backend a spec describes (see above). A composition checks
// accelerator ops on the CPU when OXINFER_BACKEND_CHECK=1, as the engine does
// (the report goes to stderr when the backend is closed).
absl::StatusOr<std::unique_ptr<TestBackend>> OpenTestBackend(const std::string& spec);
// The same with explicit options for a composition.
absl::StatusOr<std::unique_ptr<TestBackend>> OpenTestBackend(const std::string& spec,
                                                             const DispatchOptions& options);

}  // namespace testing
}  // namespace oxinfer

#endif  // OXINFER_TESTS_SUPPORT_TEST_BACKENDS_H_
