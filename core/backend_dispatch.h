// Composes an accelerator's backend table with the CPU reference: each op the
// accelerator provides runs there, every other op on the CPU. Model plugins
// receive the composed table and never see which is which.
#ifndef OXINFER_CORE_BACKEND_DISPATCH_H_
#define OXINFER_CORE_BACKEND_DISPATCH_H_

#include <string>

#include "oxinfer/plugin_abi.h"

namespace oxinfer {

class ComposedBackend {
 public:
  // `fallback` must provide every op (a CPU variant); `primary` may be the
  // same table, or an accelerator that provides some. Both are borrowed.
  ComposedBackend(const oxi_backend_iface* primary, const oxi_backend_iface* fallback);
  ComposedBackend(const ComposedBackend&) = delete;
  ComposedBackend& operator=(const ComposedBackend&) = delete;

  const oxi_backend_iface* iface() const { return &table_; }

  // Which table serves op `field` ("matmul", ...): for --devices and tests.
  const oxi_backend_iface* primary() const { return primary_; }
  const oxi_backend_iface* fallback() const { return fallback_; }

 private:
  oxi_backend_iface table_;
  const oxi_backend_iface* primary_;
  const oxi_backend_iface* fallback_;
  std::string name_;
};

}  // namespace oxinfer

#endif  // OXINFER_CORE_BACKEND_DISPATCH_H_
