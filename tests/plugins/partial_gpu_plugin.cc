// A partial GPU backend: the accelerator "auto" and "gpu" pick.
#include "tests/plugins/test_backend.h"

OXINFER_TEST_BACKEND("test-gpu", "1.0.0", OXI_DEVICE_GPU, 0, 5)
