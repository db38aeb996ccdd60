// The backend an SD test runs on, from its command line: one spec as
// tests/support/test_backends.h reads them ("<cpu .so>" or "<accel .so>+<cpu .so>").
#ifndef OXINFER_TESTS_MODELS_SD_BACKEND_ARG_H_
#define OXINFER_TESTS_MODELS_SD_BACKEND_ARG_H_

#include <string>

#include "oxinfer/backend_abi.h"

namespace oxinfer {
namespace sd {
namespace testing {

// Opens the backend named by argv[1] (after gtest took its flags) and points
// the SDK's host slot at the test host. Returns 0 to run the tests, 1 on a
// usage or load error (printed), -1 when this CPU cannot run the backend
// (printed; the test passes without running).
int InitBackendFromArgs(int argc, char** argv);

// The backend opened by InitBackendFromArgs, and its short name.
const oxi_backend_iface* TestBackendIface();
const std::string& TestBackendName();

}  // namespace testing
}  // namespace sd
}  // namespace oxinfer

#endif  // OXINFER_TESTS_MODELS_SD_BACKEND_ARG_H_
