// The backend table model plugins receive: an accelerator for the operations
// its supports() accepts, the CPU reference for the rest, with the copies in
// between (core/dispatch/dispatcher.h says how); --profile timing; and the
// check mode that recomputes accelerator ops on the CPU.
//
//   auto composed = ComposedBackend::Create(accel, cpu, DispatchOptions{/*profile=*/true});
//   model->open(..., (*composed)->iface(), ...);
//   ... std::fputs((*composed)->ProfileReport().c_str(), stderr);
//
// Nothing to compose, profile or check: iface() is the CPU's own table (no
// cost at all). With --profile alone, the CPU's table with execute timed.
//
// Thread-safety: like every backend table, one thread at a time (the host
// serialises calls); the reports may be read between calls.
#ifndef OXINFER_CORE_BACKEND_DISPATCH_H_
#define OXINFER_CORE_BACKEND_DISPATCH_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "core/dispatch/check_log.h"
#include "core/dispatch/profile.h"
#include "oxinfer/backend_abi.h"

namespace oxinfer {

namespace dispatch {
class Dispatcher;
class ProfiledBackend;
}  // namespace dispatch

struct DispatchOptions {
  bool profile = false;  // --profile: per op kind and backend: calls, time, bytes; copies
  bool check = false;    // OXINFER_BACKEND_CHECK=1: recompute accelerator ops on the CPU
};

// Whether OXINFER_BACKEND_CHECK asks for the check mode ("1").
bool BackendCheckFromEnvironment();

class ComposedBackend {
 public:
  // `accelerator` may be null (or the CPU's own table); `cpu` is the
  // complete CPU backend. Both are borrowed and must outlive this; this must
  // outlive the models opened with iface() (it frees what they left).
  static absl::StatusOr<std::unique_ptr<ComposedBackend>> Create(
      const oxi_backend_iface* accelerator, const oxi_backend_iface* cpu,
      const DispatchOptions& options);
  ~ComposedBackend();  // prints CheckReport() to stderr when checking
  ComposedBackend(const ComposedBackend&) = delete;
  ComposedBackend& operator=(const ComposedBackend&) = delete;

  // What model plugins get: "<accel>+<cpu>", flags COMPLETE; or the CPU's
  // own table when there is nothing to compose, profile or check.
  const oxi_backend_iface* iface() const;

  std::string ProfileReport() const;  // "" when not profiling
  void ResetProfile();
  std::string CheckReport() const;  // worst relative error per op kind; "" when not checking

  // The figures behind the reports (null when not profiling / checking).
  const dispatch::Profile* profile() const;
  const dispatch::CheckLog* check_log() const;

 private:
  ComposedBackend() = default;
  void BuildTable();

  const oxi_backend_iface* cpu_ = nullptr;
  std::unique_ptr<dispatch::Dispatcher> dispatcher_;     // with an accelerator
  std::unique_ptr<dispatch::ProfiledBackend> profiled_;  // the CPU alone, profiled
  oxi_backend_iface table_ = {};
  std::string name_;
};

}  // namespace oxinfer

#endif  // OXINFER_CORE_BACKEND_DISPATCH_H_
