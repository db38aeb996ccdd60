// A partial ACCEL backend with the best score: "auto" must not pick it; only
// its name does.
#include "tests/plugins/test_backend.h"

OXINFER_TEST_BACKEND("test-accel", "1.0.0", OXI_DEVICE_ACCEL, 0, 1000)
