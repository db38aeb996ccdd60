// An in-process test accelerator whose buffers are host memory (the SDK's
// default) and that can wrap host memory: composed with a CPU it shares the
// CPU's bytes, so nothing is ever copied. It runs rms_norm, and matmul on F16
// weights (and asks for F16 where a model wants BF16), with the plain loops.
// The no-op variant accepts every op and does nothing: for measuring the
// dispatcher's own cost.
#ifndef OXINFER_TESTS_BACKENDS_HOST_ACCEL_H_
#define OXINFER_TESTS_BACKENDS_HOST_ACCEL_H_

#include "oxinfer/backend_abi.h"

namespace oxinfer {
namespace testing {

const oxi_backend_iface* HostAccelBackend();

// Accepts and ignores every op. `wrap` false: its table lacks buffer_wrap,
// so a composition keeps separate replicas (and tracks their validity).
const oxi_backend_iface* NoopAccelBackend(bool wrap);

}  // namespace testing
}  // namespace oxinfer

#endif  // OXINFER_TESTS_BACKENDS_HOST_ACCEL_H_
