// A complete CPU backend (a CPU fallback), score 10.
#include "tests/plugins/test_backend.h"

OXINFER_TEST_BACKEND("test-cpu", "1.0.0", OXI_DEVICE_CPU, OXI_BACKEND_COMPLETE, 10)
