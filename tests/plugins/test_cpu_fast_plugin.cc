// A better-scoring complete CPU backend (score 20): the fallback when present.
#include "tests/plugins/test_backend.h"

OXINFER_TEST_BACKEND("test-cpu-fast", "1.0.0", OXI_DEVICE_CPU, OXI_BACKEND_COMPLETE, 20)
